package io.github.ratelimit.sample;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A tiny HTTP/1.1 client that can choose its source address in 127.0.0.0/8, so that tests can act as
 * several clients with distinct IP addresses on one machine.
 */
final class RawHttp {

    record Response(int status, Map<String, String> headers, String body) {
        String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    /** The samples' operator ({@code spring.security.user.*}: ops, OPS role), for the endpoint's writes. */
    static final Map<String, String> OPERATOR = Map.of(
            "Authorization",
            "Basic " + java.util.Base64.getEncoder().encodeToString("ops:ops-secret".getBytes(StandardCharsets.UTF_8)));

    private RawHttp() {}

    static Response get(String fromAddress, int port, String path, Map<String, String> headers) {
        return send(fromAddress, port, "GET", path, headers, null);
    }

    static Response post(String fromAddress, int port, String path, Map<String, String> headers, String json) {
        return send(fromAddress, port, "POST", path, headers, json);
    }

    static Response send(
            String fromAddress, int port, String method, String path, Map<String, String> headers, String json) {
        try (Socket socket = new Socket()) {
            socket.setSoTimeout(10_000);
            socket.bind(new InetSocketAddress(fromAddress, 0));
            socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
            StringBuilder request = new StringBuilder(method + " " + path + " HTTP/1.1\r\nHost: localhost\r\n");
            headers.forEach((k, v) -> request.append(k).append(": ").append(v).append("\r\n"));
            byte[] body = json == null ? new byte[0] : json.getBytes(StandardCharsets.UTF_8);
            if (json != null) {
                request.append("Content-Type: application/json\r\nContent-Length: ")
                        .append(body.length)
                        .append("\r\n");
            } else if (method.equals("POST")) {
                request.append("Content-Length: 0\r\n");
            }
            request.append("Connection: close\r\n\r\n");
            OutputStream out = socket.getOutputStream();
            out.write(request.toString().getBytes(StandardCharsets.UTF_8));
            out.write(body);
            out.flush();
            return parse(socket.getInputStream());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Response parse(InputStream in) throws IOException {
        byte[] all = in.readAllBytes();
        String text = new String(all, StandardCharsets.UTF_8);
        int end = text.indexOf("\r\n\r\n");
        String[] lines = text.substring(0, end).split("\r\n");
        int status = Integer.parseInt(lines[0].split(" ")[1]);
        Map<String, String> headers = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            headers.merge(
                    lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT),
                    lines[i].substring(colon + 1).trim(),
                    (a, b) -> a + ", " + b);
        }
        String body = text.substring(end + 4);
        if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            body = dechunk(body);
        }
        return new Response(status, headers, body);
    }

    private static String dechunk(String body) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int at = 0;
        while (true) {
            int lineEnd = body.indexOf("\r\n", at);
            int size = Integer.parseInt(body.substring(at, lineEnd).trim(), 16);
            if (size == 0) {
                return out.toString(StandardCharsets.UTF_8);
            }
            byte[] chunk = body.substring(lineEnd + 2).getBytes(StandardCharsets.UTF_8);
            out.write(chunk, 0, size);
            at = lineEnd + 2 + new String(chunk, 0, size, StandardCharsets.UTF_8).length() + 2;
        }
    }
}
