package io.github.ratelimit.core.internal;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/** Strict IP literal parsing: never a DNS lookup, whatever a client writes in a header. */
public final class IpAddresses {

    private static final Pattern IPV4 = Pattern.compile("(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})");
    private static final Pattern IPV6 = Pattern.compile("[0-9A-Fa-f:.]{2,45}");

    private IpAddresses() {}

    /** The address, or null if the text is not an IPv4 or IPv6 literal (brackets, port and zone stripped). */
    public static @Nullable InetAddress parse(@Nullable String text) {
        if (text == null) {
            return null;
        }
        String value = text.trim();
        if (value.startsWith("\"") && value.endsWith("\"") && value.length() >= 2) {
            value = value.substring(1, value.length() - 1);
        }
        if (value.startsWith("[")) {
            int end = value.indexOf(']');
            if (end < 0) {
                return null;
            }
            value = value.substring(1, end);
        } else if (value.indexOf(':') >= 0 && value.indexOf(':') == value.lastIndexOf(':') && value.contains(".")) {
            value = value.substring(0, value.indexOf(':')); // IPv4 with a port
        }
        int zone = value.indexOf('%');
        if (zone >= 0) {
            value = value.substring(0, zone);
        }
        var v4 = IPV4.matcher(value);
        if (v4.matches()) {
            byte[] bytes = new byte[4];
            for (int i = 0; i < 4; i++) {
                int octet = Integer.parseInt(v4.group(i + 1));
                if (octet > 255) {
                    return null;
                }
                bytes[i] = (byte) octet;
            }
            return byAddress(bytes);
        }
        if (value.indexOf(':') >= 0 && IPV6.matcher(value).matches()) {
            try {
                return InetAddress.getByName(value); // a literal with ':' is parsed, never looked up
            } catch (UnknownHostException e) {
                return null;
            }
        }
        return null;
    }

    public static InetAddress byAddress(byte[] bytes) {
        try {
            return InetAddress.getByAddress(bytes);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(e);
        }
    }
}
