package io.github.ratelimit.decision;

import io.github.ratelimit.core.CallerContext;
import io.github.ratelimit.core.internal.Cidr;
import io.github.ratelimit.core.internal.IpAddresses;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The trusted callers no rate limit applies to ({@code ratelimit.exempt}): client addresses in the given blocks, the
 * given principals, requests carrying one of the given values of a header (such as an internal API key, compared in
 * constant time). An exempt call is neither limited nor counted, and gets no RateLimit fields.
 */
public final class Exemptions {

    /** Nobody is exempt. */
    public static final Exemptions NONE = new Exemptions(List.of(), Set.of(), Map.of());

    private final List<Cidr> addresses;
    private final Set<String> principals;
    private final Map<String, List<byte[]>> headers;

    private Exemptions(List<Cidr> addresses, Set<String> principals, Map<String, List<byte[]>> headers) {
        this.addresses = addresses;
        this.principals = principals;
        this.headers = headers;
    }

    /**
     * The callers given, checked: an invalid address block fails naming it ({@code ips[0]}).
     *
     * @param ips addresses or CIDR blocks, IP literals only (never a DNS lookup)
     * @param principals principals' names
     * @param headers per header name, the values that exempt a request carrying one (compared in constant time)
     */
    public static Exemptions of(List<String> ips, Collection<String> principals, Map<String, List<String>> headers) {
        List<Cidr> addresses = new ArrayList<>();
        for (int i = 0; i < ips.size(); i++) {
            addresses.add(Cidr.parse(ips.get(i), "ips[" + i + "]"));
        }
        Map<String, List<byte[]>> bytesByHeader = new java.util.LinkedHashMap<>();
        headers.forEach((name, values) -> {
            List<byte[]> bytes = new ArrayList<>();
            for (String value : values) {
                bytes.add(value.getBytes(StandardCharsets.UTF_8));
            }
            bytesByHeader.put(name, List.copyOf(bytes));
        });
        if (addresses.isEmpty() && principals.isEmpty() && bytesByHeader.isEmpty()) {
            return NONE;
        }
        return new Exemptions(List.copyOf(addresses), Set.copyOf(principals), Map.copyOf(bytesByHeader));
    }

    /** Whether nobody is exempt. */
    public boolean isEmpty() {
        return this == NONE;
    }

    /** Whether no rate limit applies to this caller. */
    public boolean exempt(CallerContext caller) {
        if (this == NONE) {
            return false;
        }
        if (!principals.isEmpty()) {
            String principal = caller.principalName();
            if (principal != null && principals.contains(principal)) {
                return true;
            }
        }
        if (!addresses.isEmpty()) {
            String text = caller.clientAddress();
            InetAddress address = text == null ? null : IpAddresses.parse(text);
            if (address != null) {
                for (Cidr block : addresses) {
                    if (block.contains(address)) {
                        return true;
                    }
                }
            }
        }
        for (Map.Entry<String, List<byte[]>> header : headers.entrySet()) {
            String value = caller.header(header.getKey());
            if (value != null) {
                byte[] given = value.getBytes(StandardCharsets.UTF_8);
                for (byte[] expected : header.getValue()) {
                    if (MessageDigest.isEqual(given, expected)) {
                        return true;
                    }
                }
            }
        }
        return false;
    }
}
