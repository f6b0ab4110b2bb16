package oauth

import (
	"context"
	"crypto"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net/url"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"golang.org/x/oauth2/clientcredentials"
)

// ParsePrivateKey parses a PEM private key (PKCS #8, SEC 1 EC or PKCS #1
// RSA), for Config.PrivateKey.
func ParsePrivateKey(pemText []byte) (crypto.Signer, error) {
	block, _ := pem.Decode(pemText)
	if block == nil {
		return nil, errors.New("oauth: no PEM block")
	}
	if k, err := x509.ParsePKCS8PrivateKey(block.Bytes); err == nil {
		if s, ok := k.(crypto.Signer); ok {
			return s, nil
		}
		return nil, errors.New("oauth: the PKCS #8 key cannot sign")
	}
	if k, err := x509.ParseECPrivateKey(block.Bytes); err == nil {
		return k, nil
	}
	if k, err := x509.ParsePKCS1PrivateKey(block.Bytes); err == nil {
		return k, nil
	}
	return nil, errors.New("oauth: not a PKCS #8, EC or RSA private key")
}

// clientAssertion returns the client_assertion parameters of private_key_jwt
// authentication (RFC 7523 §2.2): a JWT issued by the client about itself for
// the authorization server's issuer; nil for another method.
func (a *Authorizer) clientAssertion(md *serverMetadata, ci *ClientInfo, method string) url.Values {
	if method != "private_key_jwt" || a.cfg.PrivateKey == nil {
		return nil
	}
	s, err := signedJWT(a.cfg.PrivateKey, a.cfg.SigningAlgorithm, a.cfg.KeyID, "", jwt.Claims{
		Issuer: ci.ClientID, Subject: ci.ClientID, Audience: jwt.Audience{md.Issuer}, ID: randomString(),
		IssuedAt: jwt.NewNumericDate(now()), Expiry: jwt.NewNumericDate(now().Add(5 * time.Minute)),
	}, nil)
	if err != nil {
		a.log.Error("oauth: sign the client assertion", "err", err)
		return nil
	}
	return url.Values{"client_assertion_type": {clientAssertionJW}, "client_assertion": {s}}
}

// signedJWT signs claims (and extra ones) with key.
func signedJWT(key crypto.Signer, alg, kid, typ string, claims jwt.Claims, extra map[string]any) (string, error) {
	opts := &jose.SignerOptions{}
	if kid != "" {
		opts = opts.WithHeader("kid", kid)
	}
	if typ != "" {
		opts = opts.WithType(jose.ContentType(typ))
	}
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.SignatureAlgorithm(signerAlg(key, alg)), Key: key}, opts)
	if err != nil {
		return "", err
	}
	b := jwt.Signed(s).Claims(claims)
	if extra != nil {
		b = b.Claims(extra)
	}
	return b.Serialize()
}

// IDJAG configures IDJAGAssertion: the enterprise identity provider where
// the user's ID token is exchanged for an Identity Assertion JWT
// Authorization Grant (the enterprise-managed authorization extension,
// SEP-990).
type IDJAG struct {
	// TokenURL is the identity provider's token endpoint.
	TokenURL string
	// ClientID and ClientSecret are the client's registration with the
	// identity provider (the secret sent with HTTP Basic when set).
	ClientID, ClientSecret string
	// IDToken returns the user's ID token from the identity provider.
	IDToken func(ctx context.Context) (string, error)
}

// IDJAGAssertion returns a Config.Assertion that exchanges the user's ID
// token at the identity provider for an ID-JAG for the authorization server
// and resource asked for (RFC 8693 token exchange with requested_token_type
// id-jag), which the authorization server then takes as a JWT bearer grant.
func IDJAGAssertion(idp IDJAG) func(ctx context.Context, req AssertionRequest) (string, error) {
	return func(ctx context.Context, req AssertionRequest) (string, error) {
		idToken, err := idp.IDToken(ctx)
		if err != nil {
			return "", err
		}
		params := url.Values{
			"grant_type":           {"urn:ietf:params:oauth:grant-type:token-exchange"},
			"subject_token":        {idToken},
			"subject_token_type":   {"urn:ietf:params:oauth:token-type:id_token"},
			"requested_token_type": {"urn:ietf:params:oauth:token-type:id-jag"},
			"audience":             {req.Issuer},
			"resource":             {req.Resource},
		}
		conf := clientcredentials.Config{ClientID: idp.ClientID, ClientSecret: idp.ClientSecret, TokenURL: idp.TokenURL, Scopes: req.Scopes, EndpointParams: params}
		conf.AuthStyle = authStyle("none")
		if idp.ClientSecret != "" {
			conf.AuthStyle = authStyle("client_secret_basic")
		}
		tok, err := conf.Token(ctx)
		if err != nil {
			return "", fmt.Errorf("token exchange at the identity provider: %w", err)
		}
		return tok.AccessToken, nil
	}
}
