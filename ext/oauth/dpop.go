package oauth

import (
	"bytes"
	"crypto"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"

	jose "github.com/go-jose/go-jose/v4"
)

// dpopKey makes DPoP proofs (RFC 9449 §4): JWTs of type dpop+jwt signed by
// the client's key, whose public half they embed.
type dpopKey struct {
	alg    string
	signer jose.Signer
}

func newDPoPKey(key crypto.Signer) (*dpopKey, error) {
	alg := signerAlg(key, "")
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.SignatureAlgorithm(alg), Key: key},
		(&jose.SignerOptions{EmbedJWK: true}).WithType("dpop+jwt"))
	if err != nil {
		return nil, fmt.Errorf("oauth: DPoP key: %w", err)
	}
	return &dpopKey{alg: alg, signer: s}, nil
}

// proof returns a fresh proof for a request of method to u: htu is u
// without query and fragment, ath binds accessToken when given, nonce is the
// server's when it asked for one.
func (k *dpopKey) proof(method string, u *url.URL, accessToken, nonce string) (string, error) {
	htu := url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path, RawPath: u.RawPath}
	claims := map[string]any{"jti": randomString(), "htm": method, "htu": htu.String(), "iat": now().Unix()}
	if accessToken != "" {
		sum := sha256.Sum256([]byte(accessToken))
		claims["ath"] = base64.RawURLEncoding.EncodeToString(sum[:])
	}
	if nonce != "" {
		claims["nonce"] = nonce
	}
	payload, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	obj, err := k.signer.Sign(payload)
	if err != nil {
		return "", err
	}
	return obj.CompactSerialize()
}

// client returns an HTTP client that sends token requests with a proof, and
// once more with the authorization server's nonce when it answers
// use_dpop_nonce (RFC 9449 §8); nonces holds the nonces by origin.
func (k *dpopKey) client(base *http.Client, nonces map[string]string) *http.Client {
	c := *base
	next := base.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	c.Transport = &dpopTransport{key: k, next: next, nonces: nonces}
	return &c
}

type dpopTransport struct {
	key    *dpopKey
	next   http.RoundTripper
	nonces map[string]string
}

func (t *dpopTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	for try := 0; ; try++ {
		r := req.Clone(req.Context())
		if req.GetBody != nil {
			body, err := req.GetBody()
			if err != nil {
				return nil, err
			}
			r.Body = body
		}
		proof, err := t.key.proof(r.Method, r.URL, "", t.nonces[origin(r.URL)])
		if err != nil {
			return nil, err
		}
		r.Header.Set("DPoP", proof)
		resp, err := t.next.RoundTrip(r)
		if err != nil {
			return nil, err
		}
		nonce := resp.Header.Get("DPoP-Nonce")
		if nonce != "" {
			t.nonces[origin(r.URL)] = nonce
		}
		if try > 0 || nonce == "" || resp.StatusCode != http.StatusBadRequest && resp.StatusCode != http.StatusUnauthorized || req.GetBody == nil {
			return resp, nil
		}
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxMetadata))
		resp.Body.Close()
		var e struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(raw, &e) != nil || e.Error != "use_dpop_nonce" {
			resp.Body = io.NopCloser(bytes.NewReader(raw))
			return resp, nil
		}
	}
}
