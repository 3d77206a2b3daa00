package fetch

import (
	"net"
	"net/netip"
	"testing"
)

// Every special-purpose block that is not globally reachable is refused: the
// first, a middle and the last address of each, and the same IPv4 addresses
// mapped into IPv6 and behind the NAT64 well-known prefix.
func TestReservedRanges(t *testing.T) {
	blocks := []string{
		"0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
		"192.0.0.0/24", "192.0.2.0/24", "192.31.196.0/24", "192.52.193.0/24", "192.88.99.0/24",
		"192.168.0.0/16", "192.175.48.0/24", "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24",
		"224.0.0.0/4", "240.0.0.0/4", "255.255.255.255/32",
		"::/128", "::1/128", "::/96", "64:ff9b:1::/48", "100::/64", "100:0:0:1::/64", "2001::/23",
		"2001:db8::/32", "2002::/16", "2620:4f:8000::/48", "3fff::/20", "5f00::/16", "fc00::/7",
		"fe80::/10", "fec0::/10", "ff00::/8",
	}
	for _, s := range blocks {
		p := netip.MustParsePrefix(s)
		for _, a := range []netip.Addr{p.Addr(), middle(p), last(p)} {
			if !refused(a) {
				t.Errorf("%s (in %s) is not refused", a, s)
			}
			if a.Is4() {
				if mapped := netip.AddrFrom16(a.As16()); !refused(mapped) {
					t.Errorf("%s (IPv4-mapped, in %s) is not refused", mapped, s)
				}
				if n := nat64Of(a); !refused(n) {
					t.Errorf("%s (NAT64, in %s) is not refused", n, s)
				}
			}
		}
	}
	// Neighbours of the blocks and ordinary public addresses pass, also
	// through the IPv4-mapped and NAT64 forms.
	allowed := []string{
		"1.1.1.1", "8.8.8.8", "9.255.255.255", "11.0.0.0", "100.63.255.255", "100.128.0.0", "126.255.255.255",
		"128.0.0.0", "169.253.255.255", "172.15.255.255", "172.32.0.0", "192.0.1.255", "192.0.3.0",
		"192.88.98.255", "192.167.255.255", "192.169.0.0", "198.17.255.255", "198.20.0.0", "203.0.112.255",
		"223.255.255.255", "93.184.216.34",
		"2606:4700:4700::1111", "2001:4860:4860::8888", "2001:200::1", "2003::1", "2a00:1450:4001::1",
		"3ffe:ffff::1", "64:ff9b::808:808", "::ffff:8.8.8.8",
	}
	for _, s := range allowed {
		a := netip.MustParseAddr(s)
		if refused(a) {
			t.Errorf("%s is refused", s)
		}
		if a.Is4() && refused(nat64Of(a)) {
			t.Errorf("%s behind NAT64 is refused", s)
		}
	}
	// Outside 2000::/3 nothing is global unicast, named in the table or not.
	for _, s := range []string{"4000::1", "8000::1", "e000::1", "1::1"} {
		if !refused(netip.MustParseAddr(s)) {
			t.Errorf("%s (not global unicast) is not refused", s)
		}
	}
	if !Private(nil) || !Private(net.IP{1, 2, 3}) || !Private(net.ParseIP("::ffff:10.0.0.1")) || Private(net.ParseIP("8.8.4.4")) {
		t.Error("malformed or mapped addresses misjudged")
	}
}

// refused asks the dialer's check (Private, which takes what the resolver
// gives: a net.IP) about a.
func refused(a netip.Addr) bool {
	return Private(net.IP(a.AsSlice()))
}

func middle(p netip.Prefix) netip.Addr {
	b := p.Masked().Addr().AsSlice()
	bit := p.Bits() // set the bit just below the prefix: the middle of the block
	if bit < len(b)*8 {
		b[bit/8] |= 0x80 >> (bit % 8)
	}
	a, _ := netip.AddrFromSlice(b)
	return a
}

func last(p netip.Prefix) netip.Addr {
	b := p.Masked().Addr().AsSlice()
	for i := p.Bits(); i < len(b)*8; i++ {
		b[i/8] |= 0x80 >> (i % 8)
	}
	a, _ := netip.AddrFromSlice(b)
	return a
}

func nat64Of(a netip.Addr) netip.Addr {
	v4 := a.As4()
	b := netip.MustParseAddr("64:ff9b::").As16()
	copy(b[12:], v4[:])
	return netip.AddrFrom16(b)
}
