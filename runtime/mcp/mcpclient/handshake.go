package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
)

// handshake finds the era and version to speak, as Options.ProtocolVersion asks.
func (c *Client) handshake(ctx context.Context) error {
	switch v := c.opts.ProtocolVersion; {
	case v == "":
		return c.dualEra(ctx)
	case isModernVersion(v):
		outcome, err := c.discover(ctx, v, false)
		if err == nil && outcome == probeLegacy {
			err = fmt.Errorf("mcp: the server does not speak %s", v)
		}
		return err
	case isLegacyVersion(v):
		_, err := c.initialize(ctx, v, false)
		return err
	default:
		return fmt.Errorf("mcp: unknown protocol version %q", v)
	}
}

type probeOutcome int

const (
	probeModern probeOutcome = iota // modern, version recorded
	probeLegacy                     // fall back to initialize
)

// dualEra probes with server/discover and falls back to initialize on
// anything but a DiscoverResult or a recognized modern error (spec: stdio
// transport, Backward Compatibility); see probe for what silence means.
func (c *Client) dualEra(ctx context.Context) error {
	outcome, err := c.probe(ctx)
	if err != nil {
		return err
	}
	if outcome == probeModern {
		return nil
	}
	modern, err := c.initialize(ctx, mcp.Version20251125, true)
	if err == nil && modern != "" {
		// A modern-only server named its versions in its answer to initialize
		// (it missed the probe, being slow to start for instance).
		outcome, err = c.discover(ctx, modern, false)
		if err == nil && outcome == probeLegacy {
			err = fmt.Errorf("mcp: the server speaks neither %s nor %s", modern, mcp.Version20251125)
		}
	}
	return err
}

// discoverResult is the result of server/discover.
type discoverResult struct {
	SupportedVersions []string        `json:"supportedVersions"`
	Capabilities      json.RawMessage `json:"capabilities"`
	Instructions      string          `json:"instructions"`
	ResultType        string          `json:"resultType"`
	Meta              struct {
		ServerInfo mcp.Implementation `json:"io.modelcontextprotocol/serverInfo"`
	} `json:"_meta"`
}

// versionError is the data of a -32022 UnsupportedProtocolVersion error (and of
// the -32602 a server answers an unsupported initialize with).
type versionError struct {
	Supported []string `json:"supported"`
	Requested string   `json:"requested"`
}

// supportedVersions returns e's data.supported, or nil.
func supportedVersions(e *runtime.Error) []string {
	var d versionError
	if len(e.Data) == 0 || json.Unmarshal(e.Data, &d) != nil {
		return nil
	}
	return d.Supported
}

// highest returns the newest version of ours that the server lists, or "".
func highest(ours, theirs []string) string {
	for _, v := range slices.Backward(ours) {
		if slices.Contains(theirs, v) {
			return v
		}
	}
	return ""
}

// discover sends server/discover under version and reads what the answer
// says about the server's era. When dual is false there is no fallback: an
// answer that is not modern is an error.
func (c *Client) discover(ctx context.Context, version string, dual bool) (probeOutcome, error) {
	retried := false
	for range len(mcp.ModernVersions) + 1 {
		c.setVersion(version)
		var res discoverResult
		err := c.call(ctx, mcp.MethodServerDiscover, nil, &res)
		var rpcErr *runtime.Error
		switch {
		case err == nil:
			return c.discovered(&res, dual)
		case !errors.As(err, &rpcErr):
			return probeLegacy, err
		case rpcErr.Code == mcp.CodeUnsupportedProtocolVersion && supportedVersions(rpcErr) != nil:
			// Retry with the newest version both sides speak, even the one
			// just refused, once: the server said it supports it (a replica
			// behind a load balancer may have answered for another).
			supported := supportedVersions(rpcErr)
			if v := highest(mcp.ModernVersions, supported); v != "" && (v != version || !retried) {
				c.logger.Debug("mcp: server/discover: version refused; retrying with one the server lists", "refused", version, "retry", v, "supported", supported)
				version, retried = v, true
				continue
			}
			if dual && highest(mcp.LegacyVersions, supported) != "" {
				return probeLegacy, nil
			}
			return probeLegacy, fmt.Errorf("mcp: the server supports only %v: %w", supported, err)
		case rpcErr.Code == mcp.CodeMissingClientCapability || rpcErr.Code == mcp.CodeHeaderMismatch:
			return probeLegacy, fmt.Errorf("mcp: server/discover: %w", err)
		case dual:
			c.logger.Debug("mcp: server/discover failed; trying initialize", "err", err)
			return probeLegacy, nil
		default:
			return probeLegacy, fmt.Errorf("mcp: server/discover: %w", err)
		}
	}
	return probeLegacy, errors.New("mcp: the server keeps rejecting the versions it names")
}

// discovered adopts a DiscoverResult.
func (c *Client) discovered(res *discoverResult, dual bool) (probeOutcome, error) {
	if len(res.SupportedVersions) == 0 && dual {
		// Not a DiscoverResult: some legacy server answering anything.
		c.logger.Debug("mcp: server/discover result without supportedVersions; trying initialize")
		return probeLegacy, nil
	}
	if !slices.Contains(res.SupportedVersions, c.ProtocolVersion()) {
		if v := highest(mcp.ModernVersions, res.SupportedVersions); v != "" {
			c.setVersion(v)
		} else if dual && highest(mcp.LegacyVersions, res.SupportedVersions) != "" {
			return probeLegacy, nil
		} else {
			return probeLegacy, fmt.Errorf("mcp: the server supports only %v", res.SupportedVersions)
		}
	}
	c.adopt(res.Meta.ServerInfo, res.Instructions, res.Capabilities)
	c.logger.Debug("mcp: connected", "version", c.ProtocolVersion(), "server", res.Meta.ServerInfo.Name)
	return probeModern, nil
}

// initializeResult is the result of initialize.
type initializeResult struct {
	ProtocolVersion string             `json:"protocolVersion"`
	Capabilities    json.RawMessage    `json:"capabilities"`
	ServerInfo      mcp.Implementation `json:"serverInfo"`
	Instructions    string             `json:"instructions"`
}

// initialize runs the legacy handshake offering version. When dual is set and
// the server refuses initialize naming a modern version it supports, that
// version is returned and the handshake left to discover.
func (c *Client) initialize(ctx context.Context, version string, dual bool) (modern string, err error) {
	c.setVersion(version)
	params := struct {
		ProtocolVersion string             `json:"protocolVersion"`
		Capabilities    json.RawMessage    `json:"capabilities"`
		ClientInfo      mcp.Implementation `json:"clientInfo"`
	}{version, c.opts.Capabilities, c.opts.Info}
	var res initializeResult
	// initialize must not be cancelled (lifecycle rules).
	ictx := context.WithValue(ctx, clientNoCancelKey{}, true)
	if err := c.call(ictx, mcp.MethodInitialize, &params, &res); err != nil {
		var rpcErr *runtime.Error
		if dual && errors.As(err, &rpcErr) {
			if v := highest(mcp.ModernVersions, supportedVersions(rpcErr)); v != "" {
				return v, nil
			}
		}
		return "", fmt.Errorf("mcp: initialize: %w", err)
	}
	if !isLegacyVersion(res.ProtocolVersion) {
		return "", fmt.Errorf("mcp: the server chose protocol version %q, which this client does not speak", res.ProtocolVersion)
	}
	c.setVersion(res.ProtocolVersion)
	c.adopt(res.ServerInfo, res.Instructions, res.Capabilities)
	c.offered = version
	if err := c.notify(ctx, mcp.NotificationInitialized); err != nil {
		return "", err
	}
	c.logger.Debug("mcp: connected", "version", res.ProtocolVersion, "server", res.ServerInfo.Name)
	return "", nil
}
