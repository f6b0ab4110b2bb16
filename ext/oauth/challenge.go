package oauth

import (
	"net/http"
	"strings"
)

// challenge is one WWW-Authenticate challenge (RFC 9110 §11.6.1) of the
// Bearer (RFC 6750) or DPoP (RFC 9449) scheme.
type challenge struct {
	scheme string
	params map[string]string
}

// parseChallenges reads the Bearer and DPoP challenges of h's
// WWW-Authenticate fields; challenges of other schemes are skipped.
func parseChallenges(h http.Header) []challenge {
	var out []challenge
	for _, v := range h.Values("WWW-Authenticate") {
		p := &challengeParser{s: v}
		for {
			c, ok := p.next()
			if !ok {
				break
			}
			if strings.EqualFold(c.scheme, "Bearer") || strings.EqualFold(c.scheme, "DPoP") {
				out = append(out, c)
			}
		}
	}
	return out
}

// challengeParam returns the first value of the parameter name among cs.
func challengeParam(cs []challenge, name string) string {
	for _, c := range cs {
		if v, ok := c.params[name]; ok {
			return v
		}
	}
	return ""
}

type challengeParser struct {
	s string
	i int
}

func (p *challengeParser) skipSpace() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == ',') {
		p.i++
	}
}

func (p *challengeParser) token() string {
	start := p.i
	for p.i < len(p.s) && !strings.ContainsRune(" \t,=\"", rune(p.s[p.i])) {
		p.i++
	}
	return p.s[start:p.i]
}

// next reads a scheme and its auth-params (name=token or name="quoted"),
// up to the next challenge's scheme.
func (p *challengeParser) next() (challenge, bool) {
	p.skipSpace()
	scheme := p.token()
	if scheme == "" {
		return challenge{}, false
	}
	c := challenge{scheme: scheme, params: map[string]string{}}
	for {
		p.skipSpace()
		start := p.i
		name := p.token()
		if name == "" || p.i >= len(p.s) || p.s[p.i] != '=' {
			p.i = start // the next challenge's scheme, or the end
			if name == "" && p.i < len(p.s) {
				p.i++ // a stray character
			}
			return c, true
		}
		p.i++ // '='
		var val string
		if p.i < len(p.s) && p.s[p.i] == '"' {
			p.i++
			var b strings.Builder
			for p.i < len(p.s) && p.s[p.i] != '"' {
				if p.s[p.i] == '\\' && p.i+1 < len(p.s) {
					p.i++
				}
				b.WriteByte(p.s[p.i])
				p.i++
			}
			p.i++ // the closing quote
			val = b.String()
		} else {
			val = p.token()
		}
		c.params[strings.ToLower(name)] = val
	}
}
