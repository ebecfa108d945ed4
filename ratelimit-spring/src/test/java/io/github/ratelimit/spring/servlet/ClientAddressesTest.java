package io.github.ratelimit.spring.servlet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.ratelimit.spring.web.ClientAddresses;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockHttpServletRequest;

class ClientAddressesTest {

    private final ClientAddresses clients = new ClientAddresses(List.of("10.0.0.0/8", "192.168.1.7", "fd00::/8"), 64);

    static MockHttpServletRequest from(String peer, String... forwardedFor) {
        MockHttpServletRequest request = new MockHttpServletRequest();
        request.setRemoteAddr(peer);
        for (String value : forwardedFor) {
            request.addHeader("X-Forwarded-For", value);
        }
        return request;
    }

    @Test
    void forgedForwardedForFromAnUntrustedPeerIsIgnored() {
        assertThat(ServletRequests.clientAddress(clients, from("203.0.113.9", "1.2.3.4")))
                .isEqualTo("203.0.113.9");
        assertThat(ServletRequests.clientAddress(clients, from("203.0.113.9", "10.0.0.1")))
                .isEqualTo("203.0.113.9");
    }

    @Test
    void trustedProxyChainIsReadRightToLeft() {
        // client forged "6.6.6.6"; the edge proxy appended the real peer 198.51.100.2; an inner proxy 10.1.1.1
        assertThat(ServletRequests.clientAddress(clients, from("10.0.0.5", "6.6.6.6, 198.51.100.2, 10.1.1.1")))
                .isEqualTo("198.51.100.2");
        assertThat(ServletRequests.clientAddress(clients, from("192.168.1.7", "198.51.100.2")))
                .isEqualTo("198.51.100.2");
    }

    @Test
    void duplicateHeadersAreReadInOrder() {
        assertThat(ServletRequests.clientAddress(clients, from("10.0.0.5", "6.6.6.6", "198.51.100.2", "10.9.9.9")))
                .isEqualTo("198.51.100.2");
    }

    @Test
    void junkStopsTheWalkAtTheLastVouchedAddress() {
        assertThat(ServletRequests.clientAddress(clients, from("10.0.0.5", "not-an-ip, 10.2.2.2")))
                .isEqualTo("10.2.2.2");
        assertThat(ServletRequests.clientAddress(clients, from("10.0.0.5", "evil.example.com")))
                .isEqualTo("10.0.0.5");
        assertThat(ServletRequests.clientAddress(clients, from("10.0.0.5", "1.2.3.999")))
                .isEqualTo("10.0.0.5");
        assertThat(ServletRequests.clientAddress(clients, from("10.0.0.5", ",,, ,")))
                .isEqualTo("10.0.0.5");
    }

    @Test
    void allTrustedMeansTheLeftmostHop() {
        assertThat(ServletRequests.clientAddress(clients, from("10.0.0.5", "10.3.3.3, 10.4.4.4")))
                .isEqualTo("10.3.3.3");
    }

    @Test
    void hugeHeaderOnlyItsLastHopsAreRead() {
        String huge = "1.1.1.1, ".repeat(900) + "198.51.100.77";
        assertThat(huge.length()).isGreaterThan(8000);
        assertThat(ServletRequests.clientAddress(clients, from("10.0.0.5", huge)))
                .isEqualTo("198.51.100.77");
        assertThat(ServletRequests.clientAddress(clients, from("203.0.113.9", "x".repeat(8192))))
                .isEqualTo("203.0.113.9");
    }

    @Test
    void forwardedHeaderWithQuotesPortsAndIpv6() {
        MockHttpServletRequest request = from("10.0.0.5");
        request.addHeader("Forwarded", "for=6.6.6.6, for=\"[2001:db8:cafe::17]:4711\";proto=https");
        assertThat(ServletRequests.clientAddress(clients, request)).isEqualTo("2001:db8:cafe::/64");
        MockHttpServletRequest v4 = from("10.0.0.5");
        v4.addHeader("Forwarded", "for=\"198.51.100.3:8080\";by=10.0.0.5");
        v4.addHeader("X-Forwarded-For", "6.6.6.6"); // Forwarded wins
        assertThat(ServletRequests.clientAddress(clients, v4)).isEqualTo("198.51.100.3");
    }

    @Test
    void ipv6ClientsAreGroupedByPrefix() {
        String a = ServletRequests.clientAddress(clients, from("2001:db8:1:2:aaaa::1"));
        String b = ServletRequests.clientAddress(clients, from("2001:db8:1:2:bbbb:cccc:dddd:eeee"));
        String other = ServletRequests.clientAddress(clients, from("2001:db8:1:3::1"));
        assertThat(a).isEqualTo("2001:db8:1:2::/64").isEqualTo(b);
        assertThat(other).isEqualTo("2001:db8:1:3::/64");
        assertThat(ServletRequests.clientAddress(new ClientAddresses(List.of(), 48), from("2001:db8:1:2::1")))
                .isEqualTo("2001:db8:1::/48");
    }

    @Test
    void ipv4MappedAddressesCountAsIpv4() {
        assertThat(ServletRequests.clientAddress(clients, from("::ffff:203.0.113.9")))
                .isEqualTo("203.0.113.9");
    }

    @Test
    void thePeerIsReadBeneathRequestWrappers() {
        MockHttpServletRequest inner = from("203.0.113.9", "1.2.3.4");
        var wrapped = new jakarta.servlet.http.HttpServletRequestWrapper(inner) {
            @Override
            public String getRemoteAddr() {
                return "1.2.3.4"; // as a forwarded-header filter that trusts everyone would say
            }
        };
        assertThat(ServletRequests.clientAddress(clients, wrapped)).isEqualTo("203.0.113.9");
    }

    @Test
    void badTrustedProxiesAreNamed() {
        assertThatThrownBy(() -> new ClientAddresses(List.of("10.0.0.0/8", "proxy.internal"), 64))
                .hasMessageContaining("ratelimit.client.trusted-proxies[1]")
                .hasMessageContaining("proxy.internal");
        assertThatThrownBy(() -> new ClientAddresses(List.of("10.0.0.0/33"), 64))
                .hasMessageContaining("prefix length outside 0..32");
        assertThatThrownBy(() -> new ClientAddresses(List.of(), 0))
                .hasMessageContaining("ratelimit.client.ipv6-prefix-length");
    }
}
