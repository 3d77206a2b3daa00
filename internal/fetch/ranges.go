package fetch

import (
	"net"
	"net/netip"
)

// reserved lists the destinations Folio refuses to fetch from (unless the
// operator allows private fetches): every entry of the IANA special-purpose
// address registries that is not globally reachable, as of the registries
// updated in 2025:
//
//	https://www.iana.org/assignments/iana-ipv4-special-registry/
//	https://www.iana.org/assignments/iana-ipv6-special-registry/
//
// plus multicast, the deprecated site-local and IPv4-compatible IPv6 blocks,
// and a few globally reachable anycast blocks (AS112, AMT, the deprecated
// 6to4 relay anycast, the PCP/TURN anycast addresses inside 192.0.0.0/24 and
// 2001::/23) that no document is ever served from: refusing them costs
// nothing and keeps each registry block whole. IPv4-mapped (::ffff:0:0/96)
// and NAT64 (64:ff9b::/96) addresses are judged by the IPv4 address they
// carry; see Reserved. This table is the one place the ranges are listed.
var reserved = prefixes(
	// IPv4
	"0.0.0.0/8",          // "this network" (RFC 791)
	"10.0.0.0/8",         // private use (RFC 1918)
	"100.64.0.0/10",      // shared address space, carrier-grade NAT (RFC 6598)
	"127.0.0.0/8",        // loopback (RFC 1122)
	"169.254.0.0/16",     // link local, cloud metadata services (RFC 3927)
	"172.16.0.0/12",      // private use (RFC 1918)
	"192.0.0.0/24",       // IETF protocol assignments (RFC 6890), incl. 192.0.0.0/29 DS-Lite, 192.0.0.170/31 NAT64 discovery
	"192.0.2.0/24",       // documentation, TEST-NET-1 (RFC 5737)
	"192.31.196.0/24",    // AS112-v4 anycast (RFC 7535)
	"192.52.193.0/24",    // AMT anycast (RFC 7450)
	"192.88.99.0/24",     // deprecated 6to4 relay anycast (RFC 7526)
	"192.168.0.0/16",     // private use (RFC 1918)
	"192.175.48.0/24",    // AS112 direct delegation (RFC 7534)
	"198.18.0.0/15",      // benchmarking (RFC 2544)
	"198.51.100.0/24",    // documentation, TEST-NET-2 (RFC 5737)
	"203.0.113.0/24",     // documentation, TEST-NET-3 (RFC 5737)
	"224.0.0.0/4",        // multicast (RFC 5771)
	"240.0.0.0/4",        // reserved for future use (RFC 1112)
	"255.255.255.255/32", // limited broadcast (RFC 919)

	// IPv6
	"::/128",            // unspecified (RFC 4291)
	"::1/128",           // loopback (RFC 4291)
	"::/96",             // deprecated IPv4-compatible addresses (RFC 4291)
	"64:ff9b:1::/48",    // local-use IPv4/IPv6 translation (RFC 8215)
	"100::/64",          // discard-only (RFC 6666)
	"100:0:0:1::/64",    // dummy prefix (RFC 9780)
	"2001::/23",         // IETF protocol assignments (RFC 2928): Teredo, benchmarking, ORCHID, anycast
	"2001:db8::/32",     // documentation (RFC 3849)
	"2002::/16",         // 6to4 (RFC 3056): the relay may deliver to any IPv4 address
	"2620:4f:8000::/48", // AS112 direct delegation (RFC 7534)
	"3fff::/20",         // documentation (RFC 9637)
	"5f00::/16",         // segment routing SIDs (RFC 9602)
	"fc00::/7",          // unique local (RFC 4193)
	"fe80::/10",         // link-local unicast (RFC 4291)
	"fec0::/10",         // deprecated site-local (RFC 3879)
	"ff00::/8",          // multicast (RFC 4291)
)

var (
	nat64 = netip.MustParsePrefix("64:ff9b::/96") // well-known NAT64 prefix (RFC 6052)
	// Only 2000::/3 is allocated as global unicast (IANA IPv6 address
	// space registry): anything outside it is refused even when no entry
	// above names it.
	globalUnicast = netip.MustParsePrefix("2000::/3")
)

func prefixes(ss ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParsePrefix(s)
	}
	return out
}

// Reserved tells whether addr is refused as a fetch destination: a special
// purpose, private, loopback, link-local, documentation, multicast or
// otherwise not globally reachable address. IPv4-mapped IPv6 addresses and
// well-known-prefix NAT64 addresses are judged by the IPv4 address inside.
func Reserved(addr netip.Addr) bool {
	if !addr.IsValid() {
		return true
	}
	addr = addr.WithZone("")
	if addr.Is4In6() {
		addr = addr.Unmap()
	}
	if addr.Is6() && nat64.Contains(addr) {
		b := addr.As16()
		addr = netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
	}
	if addr.Is6() && !globalUnicast.Contains(addr) {
		return true
	}
	for _, p := range reserved {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}

// Private is Reserved for a net.IP (nil and malformed addresses are refused).
func Private(ip net.IP) bool {
	addr, ok := netip.AddrFromSlice(ip)
	if !ok {
		return true
	}
	return Reserved(addr)
}
