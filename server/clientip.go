package server

import (
	"net/netip"
	"strings"

	"github.com/gofiber/fiber/v3"
)

// clientIP is the address a request comes from: the TCP peer, unless the
// peer is one of trusted_proxies, in which case X-Forwarded-For is read.
func (s *Server) clientIP(c fiber.Ctx) netip.Addr {
	var peer netip.Addr
	if ip := c.RequestCtx().RemoteIP(); ip != nil {
		peer, _ = netip.AddrFromSlice(ip)
	}
	var forwarded []string
	for _, v := range c.Request().Header.PeekAll(fiber.HeaderXForwardedFor) {
		forwarded = append(forwarded, string(v))
	}
	return clientAddr(peer, forwarded, s.trustedProxies)
}

// clientAddr walks X-Forwarded-For from the right (each proxy appends the
// address it was reached from) past every trusted proxy: the first address
// that is not one is the client. A client can write anything at the left
// of the header, so nothing left of that address is believed. If a hop is
// not an address, the last trusted hop is all we know.
func clientAddr(peer netip.Addr, forwarded []string, trusted []netip.Prefix) netip.Addr {
	addr := peer.Unmap()
	if !inPrefixes(addr, trusted) {
		return addr
	}
	var hops []string
	for _, v := range forwarded {
		hops = append(hops, strings.Split(v, ",")...)
	}
	for i := len(hops) - 1; i >= 0; i-- {
		hop := strings.TrimSpace(hops[i])
		ip, err := netip.ParseAddr(hop)
		if err != nil {
			ap, perr := netip.ParseAddrPort(hop) // "1.2.3.4:5678", "[::1]:80"
			if perr != nil {
				return addr
			}
			ip = ap.Addr()
		}
		addr = ip.Unmap().WithZone("")
		if !inPrefixes(addr, trusted) {
			return addr
		}
	}
	return addr
}

func inPrefixes(ip netip.Addr, ps []netip.Prefix) bool {
	for _, p := range ps {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}
