package io.github.ratelimit.test.support;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * Redis spoken over a plain socket, for what a client library hides: MONITOR, INFO, the server's pid. Not a
 * parser: replies are returned as raw RESP text.
 */
public final class RawRedis implements AutoCloseable {

    private final Socket socket;
    private final StringBuilder seen = new StringBuilder();
    private final @Nullable Thread reader;

    private RawRedis(Socket socket, boolean keepReading) {
        this.socket = socket;
        if (keepReading) {
            reader = new Thread(this::readForever, "redis-monitor");
            reader.setDaemon(true);
            reader.start();
        } else {
            reader = null;
        }
    }

    /** Sends one command and returns its raw RESP reply, read up to its end. */
    public static String command(int port, String... args) {
        try (Socket socket = connect(port)) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(encode(args));
            InputStream in = new java.io.BufferedInputStream(socket.getInputStream());
            StringBuilder reply = new StringBuilder();
            readReply(in, reply);
            return reply.toString();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void readReply(InputStream in, StringBuilder out) throws IOException {
        String line = readLine(in);
        out.append(line).append("\r\n");
        char type = line.charAt(0);
        if (type == '$') {
            int length = Integer.parseInt(line.substring(1));
            if (length >= 0) {
                byte[] bulk = in.readNBytes(length + 2);
                out.append(new String(bulk, StandardCharsets.UTF_8));
            }
        } else if (type == '*') {
            int count = Integer.parseInt(line.substring(1));
            for (int i = 0; i < count; i++) {
                readReply(in, out);
            }
        }
    }

    private static String readLine(InputStream in) throws IOException {
        java.io.ByteArrayOutputStream line = new java.io.ByteArrayOutputStream();
        int previous = -1;
        while (true) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("connection closed in the middle of a reply");
            }
            if (previous == '\r' && b == '\n') {
                byte[] bytes = line.toByteArray();
                return new String(bytes, 0, bytes.length - 1, StandardCharsets.UTF_8);
            }
            line.write(b);
            previous = b;
        }
    }

    /** The server's process id, from INFO server. */
    public static long pid(int port) {
        return infoNumber(port, "server", "process_id");
    }

    /** A number from one section of INFO, or -1 when the section does not have it. */
    public static long infoNumber(int port, String section, String name) {
        String info = command(port, "INFO", section);
        int at = info.indexOf(name + ":");
        if (at < 0) {
            return -1;
        }
        int end = info.indexOf('\r', at);
        return Long.parseLong(info.substring(at + name.length() + 1, end).trim());
    }

    /** Starts MONITOR on its own connection; everything the server runs is recorded until {@link #close()}. */
    public static RawRedis monitor(int port) {
        try {
            Socket socket = connect(port);
            socket.getOutputStream().write(encode("MONITOR"));
            RawRedis monitor = new RawRedis(socket, true);
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (!monitor.seen().contains("+OK")) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("MONITOR did not start");
                }
                Thread.onSpinWait();
            }
            return monitor;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** What MONITOR has printed so far. */
    public String seen() {
        synchronized (seen) {
            return seen.toString();
        }
    }

    private void readForever() {
        byte[] buffer = new byte[8192];
        try {
            InputStream in = socket.getInputStream();
            int n;
            while ((n = in.read(buffer)) > 0) {
                synchronized (seen) {
                    seen.append(new String(buffer, 0, n, StandardCharsets.UTF_8));
                }
            }
        } catch (IOException closed) {
            // the monitor was closed
        }
    }

    @Override
    public void close() {
        try {
            socket.close();
            if (reader != null) {
                reader.join(5_000);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static Socket connect(int port) throws IOException {
        Socket socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
        return socket;
    }

    private static byte[] encode(String... args) {
        StringBuilder out = new StringBuilder("*").append(args.length).append("\r\n");
        for (String arg : args) {
            byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
            out.append('$').append(bytes.length).append("\r\n").append(arg).append("\r\n");
        }
        return out.toString().getBytes(StandardCharsets.UTF_8);
    }
}
