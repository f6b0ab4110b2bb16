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

// skipBlank skips spaces and tabs (RFC 9110's BWS around an auth-param's
// '=').
func (p *challengeParser) skipBlank() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
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
		p.skipBlank() // BWS before '='
		if name == "" || p.i >= len(p.s) || p.s[p.i] != '=' {
			p.i = start // the next challenge's scheme, or the end
			if name == "" && p.i < len(p.s) {
				p.i++ // a stray character
			}
			return c, true
		}
		p.i++ // '='
		p.skipBlank()
		var val string
		if p.i < len(p.s) && p.s[p.i] == '"' {
			v, ok := p.quoted()
			if !ok {
				// An unterminated quoted-string: the field is malformed
				// from here on, and nothing after the quote is taken.
				return c, true
			}
			val = v
		} else {
			val = p.token()
		}
		c.params[strings.ToLower(name)] = val
	}
}

// quoted reads a quoted-string (RFC 9110 §5.6.4) starting at its opening
// quote and returns its value, unescaped. It reports false, having consumed
// the rest of the field, when the closing quote is missing.
func (p *challengeParser) quoted() (string, bool) {
	p.i++ // the opening quote
	var b strings.Builder
	for p.i < len(p.s) {
		switch ch := p.s[p.i]; {
		case ch == '"':
			p.i++
			return b.String(), true
		case ch == '\\' && p.i+1 < len(p.s):
			b.WriteByte(p.s[p.i+1])
			p.i += 2
		default:
			b.WriteByte(ch)
			p.i++
		}
	}
	return "", false
}
