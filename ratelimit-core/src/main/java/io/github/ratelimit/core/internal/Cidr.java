package io.github.ratelimit.core.internal;

import java.net.InetAddress;

/** An address block such as {@code 10.0.0.0/8} or {@code 2001:db8::/32}; a bare address is a block of one. */
public record Cidr(byte[] network, int prefix) {

    /**
     * Parses an IP literal (never a DNS lookup) with an optional prefix length.
     *
     * @param property the property the text came from, named in the exception
     * @throws IllegalArgumentException when the text is no IP literal or the prefix length is out of range
     */
    public static Cidr parse(String text, String property) {
        String value = text == null ? "" : text.trim();
        int slash = value.indexOf('/');
        InetAddress address = IpAddresses.parse(slash < 0 ? value : value.substring(0, slash));
        if (address == null) {
            throw new IllegalArgumentException(
                    property + " must be an IP address or CIDR block such as 10.0.0.0/8, but was '" + text + "'");
        }
        int bits = address.getAddress().length * 8;
        int prefix = bits;
        if (slash >= 0) {
            try {
                prefix = Integer.parseInt(value.substring(slash + 1));
            } catch (NumberFormatException e) {
                prefix = -1;
            }
            if (prefix < 0 || prefix > bits) {
                throw new IllegalArgumentException(
                        property + " has a prefix length outside 0.." + bits + ": '" + text + "'");
            }
        }
        return new Cidr(mask(address.getAddress(), prefix), prefix);
    }

    public boolean contains(InetAddress address) {
        byte[] bytes = address.getAddress();
        return bytes.length == network.length && java.util.Arrays.equals(mask(bytes, prefix), network);
    }

    public static byte[] mask(byte[] address, int prefix) {
        byte[] out = address.clone();
        for (int i = 0; i < out.length; i++) {
            int keep = Math.max(0, Math.min(8, prefix - i * 8));
            out[i] = (byte) (out[i] & (0xFF << (8 - keep)));
        }
        return out;
    }
}
