package io.github.ratelimit.spring.web;

import io.github.ratelimit.core.internal.Cidr;
import io.github.ratelimit.core.internal.IpAddresses;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Who the client is, by network address, in a way a client cannot forge.
 *
 * <p>The TCP peer is the client unless it is a configured trusted proxy. Only then are {@code Forwarded}
 * (RFC 7239) or else {@code X-Forwarded-For} read, right to left, skipping trusted hops: the first address not
 * trusted is the client. A client that sends such a header directly is its own TCP peer and is not trusted, so
 * the header is ignored. The peer is read from the innermost request, beneath wrappers such as Spring's
 * {@code ForwardedHeaderFilter}, so that trust is decided here alone.
 *
 * <p>IPv6 clients are grouped by prefix (default /64): one host rotating addresses within its block stays one
 * client. IPv4-mapped IPv6 addresses count as IPv4.
 */
public final class ClientAddresses {

    /** At most this many forwarded hops are read, from the right; the rest of a long header is ignored. */
    static final int MAX_HOPS = 32;

    private final List<Cidr> trustedProxies;
    private final int ipv6Prefix;

    /**
     * @param trustedProxies addresses or CIDR blocks of the proxies in front of the application
     * @param ipv6PrefixLength how many leading bits of an IPv6 address identify one client (1..128)
     */
    public ClientAddresses(List<String> trustedProxies, int ipv6PrefixLength) {
        List<Cidr> parsed = new ArrayList<>();
        for (int i = 0; i < trustedProxies.size(); i++) {
            parsed.add(Cidr.parse(trustedProxies.get(i), "ratelimit.client.trusted-proxies[" + i + "]"));
        }
        if (ipv6PrefixLength < 1 || ipv6PrefixLength > 128) {
            throw new IllegalArgumentException(
                    "ratelimit.client.ipv6-prefix-length must be between 1 and 128, but was " + ipv6PrefixLength);
        }
        this.trustedProxies = List.copyOf(parsed);
        this.ipv6Prefix = ipv6PrefixLength;
    }

    /**
     * The client's address, IPv6 reduced to its prefix ({@code 2001:db8:1:2::/64}), from the TCP peer and the request's
     * header lines, for either server stack.
     *
     * @param peerText the TCP peer's address as text (for a servlet request, that of the innermost request, beneath
     *     wrappers such as Spring's {@code ForwardedHeaderFilter}, so that trust is decided here alone)
     * @param headerLines every line of a header, in order, by name (null or empty when absent)
     */
    public @Nullable String clientAddress(@Nullable String peerText, Function<String, List<String>> headerLines) {
        InetAddress peer = IpAddresses.parse(peerText);
        if (peer == null) {
            return peerText; // not an IP (a Unix socket, a test double): use it as it is
        }
        InetAddress client = peer;
        if (trusted(peer)) {
            List<String> hops = forwardedHops(headerLines);
            for (int i = hops.size() - 1; i >= 0; i--) {
                InetAddress hop = IpAddresses.parse(hops.get(i));
                if (hop == null) {
                    break; // junk: keep the last address a trusted proxy vouched for
                }
                client = hop;
                if (!trusted(hop)) {
                    break;
                }
            }
        }
        return format(client);
    }

    boolean trusted(InetAddress address) {
        InetAddress plain = unmapped(address);
        for (Cidr cidr : trustedProxies) {
            if (cidr.contains(plain)) {
                return true;
            }
        }
        return false;
    }

    private String format(InetAddress address) {
        InetAddress plain = unmapped(address);
        if (plain instanceof Inet6Address) {
            byte[] masked = Cidr.mask(plain.getAddress(), ipv6Prefix);
            String network = IpAddresses.byAddress(masked).getHostAddress();
            return compress(network) + "/" + ipv6Prefix;
        }
        return plain.getHostAddress();
    }

    private static InetAddress unmapped(InetAddress address) {
        byte[] bytes = address.getAddress();
        if (bytes.length == 16) {
            boolean mapped = bytes[10] == (byte) 0xFF && bytes[11] == (byte) 0xFF;
            for (int i = 0; i < 10 && mapped; i++) {
                mapped = bytes[i] == 0;
            }
            if (mapped) {
                return IpAddresses.byAddress(new byte[] {bytes[12], bytes[13], bytes[14], bytes[15]});
            }
        }
        return address;
    }

    /** The hops of {@code Forwarded} ({@code for=}) if present, else of {@code X-Forwarded-For}, in order. */
    private static List<String> forwardedHops(Function<String, List<String>> headerLines) {
        List<String> forwarded = values(headerLines.apply("Forwarded"));
        List<String> hops = new ArrayList<>();
        if (!forwarded.isEmpty()) {
            for (String element : forwarded) {
                for (String pair : element.split(";")) {
                    String trimmed = pair.trim();
                    if (trimmed.toLowerCase(Locale.ROOT).startsWith("for=")) {
                        hops.add(trimmed.substring(4));
                    }
                }
            }
        } else {
            hops.addAll(values(headerLines.apply("X-Forwarded-For")));
        }
        return hops.size() > MAX_HOPS ? hops.subList(hops.size() - MAX_HOPS, hops.size()) : hops;
    }

    /** Every comma-separated value of every instance of a header, in order. */
    private static List<String> values(List<String> headers) {
        if (headers == null) {
            return List.of();
        }
        List<String> values = new ArrayList<>();
        for (String header : headers) {
            for (String value : header.split(",")) {
                if (!value.isBlank()) {
                    values.add(value.trim());
                }
            }
        }
        return values;
    }

    /** The canonical compressed form of an IPv6 address (the longest run of zero groups as ::). */
    static String compress(String full) {
        String[] groups = full.split(":");
        int bestStart = -1;
        int bestLength = 0;
        for (int i = 0; i < groups.length; ) {
            if (groups[i].equals("0")) {
                int j = i;
                while (j < groups.length && groups[j].equals("0")) {
                    j++;
                }
                if (j - i > bestLength && j - i > 1) {
                    bestStart = i;
                    bestLength = j - i;
                }
                i = j;
            } else {
                i++;
            }
        }
        if (bestStart < 0) {
            return full;
        }
        String head = String.join(":", java.util.Arrays.copyOfRange(groups, 0, bestStart));
        String tail = String.join(":", java.util.Arrays.copyOfRange(groups, bestStart + bestLength, groups.length));
        return head + "::" + tail;
    }
}
