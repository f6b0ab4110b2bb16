package mcpclient

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/rpcgen/rpcgen/runtime/mcp"
)

// The Skills extension (SEP-2640) from the host's side: the client lists a
// server's skills, gets one, and reads a skill's files, verifying each
// against the skill's entry before handing it out. The client must declare
// mcp.SkillsExtensionID in Options.Extensions, and the server must have
// declared it, as for any CallExtension.

// ErrSkillVerification is the error ReadSkillFile returns, wrapped, for a
// file the skill's entry does not list, or whose bytes do not have the
// entry's size or digest: a host must not use such a file, nor a skill
// whose SKILL.md fails.
var ErrSkillVerification = errors.New("mcp: skill file failed verification")

// skillListMaxPages bounds the pages ListSkills walks.
const skillListMaxPages = 100

// ListSkills lists the server's skills, walking every page (skills/list).
func (c *Client) ListSkills(ctx context.Context) ([]mcp.Skill, error) {
	var all []mcp.Skill
	cursor := ""
	for range skillListMaxPages {
		params := map[string]string{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		var page mcp.ListSkillsResult
		if err := c.CallExtension(ctx, mcp.MethodSkillsList, params, &page); err != nil {
			return nil, err
		}
		for i := range page.Skills {
			if err := checkSkillEntry(&page.Skills[i]); err != nil {
				return nil, err
			}
		}
		all = append(all, page.Skills...)
		if page.NextCursor == "" {
			return all, nil
		}
		cursor = page.NextCursor
	}
	return nil, fmt.Errorf("mcp: skills/list returned more than %d pages", skillListMaxPages)
}

// GetSkill returns the entry of the skill whose SKILL.md is at uri
// (skills/get).
func (c *Client) GetSkill(ctx context.Context, uri string) (*mcp.Skill, error) {
	var res mcp.GetSkillResult
	if err := c.CallExtension(ctx, mcp.MethodSkillsGet, map[string]string{"uri": uri}, &res); err != nil {
		return nil, err
	}
	if res.Skill.URI != uri {
		return nil, fmt.Errorf("mcp: skills/get %s answered the skill %s", uri, res.Skill.URI)
	}
	if err := checkSkillEntry(&res.Skill); err != nil {
		return nil, err
	}
	return &res.Skill, nil
}

// ReadSkillFile reads the file of skill at uri (resources/read; "" reads
// the skill's SKILL.md) and returns its bytes once verified: the entry must
// list the file (checked before any request), and the bytes must have the
// entry's size and SHA-256 digest. A file that fails is an error wrapping
// ErrSkillVerification; its bytes are not returned.
func (c *Client) ReadSkillFile(ctx context.Context, skill *mcp.Skill, uri string) ([]byte, error) {
	if uri == "" {
		uri = skill.URI
	}
	want, ok := skill.Resource(uri)
	if !ok {
		return nil, fmt.Errorf("%w: %s is not a file of the skill %s", ErrSkillVerification, uri, skill.URI)
	}
	contents, err := c.ReadResource(ctx, uri)
	if err != nil {
		return nil, err
	}
	var b []byte
	found := false
	for _, ct := range contents {
		if ct.URI != uri {
			continue
		}
		found = true
		if ct.Blob != "" {
			if b, err = base64.StdEncoding.DecodeString(ct.Blob); err != nil {
				return nil, fmt.Errorf("mcp: skill file %s: blob: %v", uri, err)
			}
		} else {
			b = []byte(ct.Text)
		}
		break
	}
	if !found {
		return nil, fmt.Errorf("mcp: resources/read %s returned no contents for it", uri)
	}
	if int64(len(b)) != want.Size {
		return nil, fmt.Errorf("%w: %s has %d bytes, the entry says %d", ErrSkillVerification, uri, len(b), want.Size)
	}
	sum := sha256.Sum256(b)
	if got := "sha256:" + hex.EncodeToString(sum[:]); got != want.Digest {
		return nil, fmt.Errorf("%w: %s has digest %s, the entry says %s", ErrSkillVerification, uri, got, want.Digest)
	}
	return b, nil
}

// ReadSkillDirectory lists the direct children of the directory at uri
// (resources/directory/read; the server must declare "directoryRead").
func (c *Client) ReadSkillDirectory(ctx context.Context, uri string) ([]mcp.DirectoryResource, error) {
	var all []mcp.DirectoryResource
	cursor := ""
	for range skillListMaxPages {
		params := map[string]string{"uri": uri}
		if cursor != "" {
			params["cursor"] = cursor
		}
		var page mcp.ReadDirectoryResult
		if err := c.CallExtension(ctx, mcp.MethodResourcesDirectoryRead, params, &page); err != nil {
			return nil, err
		}
		all = append(all, page.Resources...)
		if page.NextCursor == "" {
			return all, nil
		}
		cursor = page.NextCursor
	}
	return nil, fmt.Errorf("mcp: resources/directory/read returned more than %d pages", skillListMaxPages)
}

// checkSkillEntry refuses an entry a host cannot verify files against.
func checkSkillEntry(s *mcp.Skill) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("mcp: invalid skill entry %q: %s", s.URI, fmt.Sprintf(format, args...))
	}
	if !strings.HasSuffix(s.URI, "/SKILL.md") {
		return bad("uri does not end in /SKILL.md")
	}
	if len(s.Frontmatter) == 0 || s.Frontmatter[0] != '{' {
		return bad("frontmatter is not an object")
	}
	if _, ok := s.Resource(s.URI); !ok {
		return bad("resources does not list the SKILL.md")
	}
	dir := s.Dir() + "/"
	seen := make(map[string]bool, len(s.Resources))
	for _, r := range s.Resources {
		switch {
		case seen[r.URI]:
			return bad("resources lists %s twice", r.URI)
		case r.URI != s.URI && !strings.HasPrefix(r.URI, dir):
			return bad("%s is outside the skill's directory", r.URI)
		case !validDigest(r.Digest):
			return bad("%s: digest %q is not sha256:<64 lowercase hex digits>", r.URI, r.Digest)
		case r.Size < 0:
			return bad("%s: negative size", r.URI)
		}
		seen[r.URI] = true
	}
	return nil
}

func validDigest(d string) bool {
	h, ok := strings.CutPrefix(d, "sha256:")
	if !ok || len(h) != 64 {
		return false
	}
	for _, c := range h {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
