package mcp

import (
	"encoding/json"
	"strings"
)

// The Skills extension (SEP-2640, io.modelcontextprotocol/skills): a server
// serves Agent Skills, each a directory whose SKILL.md (YAML frontmatter,
// then markdown) sits beside the files it refers to. skills/list and
// skills/get describe each skill by an entry (the SKILL.md's URI, its
// frontmatter as a JSON object, and every file's URI, SHA-256 digest and
// size); the files themselves are read with resources/read, and a host
// verifies each against its entry before using it. resources/directory/read
// lists a skill directory's direct children when the server declares
// "directoryRead": true.
//
// rpcgen's generator reads a skills directory (//rpcgen:skills) and
// computes the entries; mcpserver.Server.AddSkills serves them and
// mcpclient.Client.ListSkills, GetSkill and ReadSkillFile read them.

// SkillsExtensionID is the Skills extension's identifier.
const SkillsExtensionID = "io.modelcontextprotocol/skills"

// SkillDirectoryMIMEType is the mimeType of a directory in a
// resources/directory/read result.
const SkillDirectoryMIMEType = "inode/directory"

// The limits a server should keep each skill within, and a host must accept:
// files (SKILL.md included) and their total size in bytes.
const (
	SkillMaxFiles = 512
	SkillMaxBytes = 16 << 20
)

// The Skills extension's requests, rows of the method table: skills/list
// lists the skills, skills/get returns one skill's entry by its SKILL.md
// URI, resources/directory/read lists a directory's direct children.
var _ = [...]*Method{
	RegisterMethod(Method{Name: MethodSkillsList, Extension: SkillsExtensionID, Direction: ClientToServer, Retry: RetrySafe}),
	RegisterMethod(Method{Name: MethodSkillsGet, Extension: SkillsExtensionID, Direction: ClientToServer, Retry: RetrySafe, Target: "uri"}),
	RegisterMethod(Method{Name: MethodResourcesDirectoryRead, Extension: SkillsExtensionID, Direction: ClientToServer, Retry: RetrySafe, Target: "uri"}),
}

// Skill is one skill's entry, as skills/list and skills/get carry it.
type Skill struct {
	// URI is the skill's SKILL.md: skill://<skill-path>/SKILL.md, whose last
	// <skill-path> segment is the skill's name.
	URI string `json:"uri"`
	// Frontmatter is the SKILL.md's YAML frontmatter as a JSON object; it
	// has at least "name" and "description".
	Frontmatter json.RawMessage `json:"frontmatter"`
	// Resources lists every file of the skill, SKILL.md first, each once.
	Resources []SkillResource `json:"resources"`
	// Meta is the entry's _meta, nil when none.
	Meta json.RawMessage `json:"_meta,omitempty"`
}

// SkillResource is one file of a skill: its URI, the SHA-256 digest of its
// bytes ("sha256:" then 64 lowercase hex digits) and their count.
type SkillResource struct {
	URI    string `json:"uri"`
	Digest string `json:"digest"`
	Size   int64  `json:"size"`
}

// Dir returns the URI of the skill's directory: URI without "/SKILL.md".
func (s *Skill) Dir() string { return strings.TrimSuffix(s.URI, "/SKILL.md") }

// Resource returns the entry of the file at uri, or false when the skill
// does not list it.
func (s *Skill) Resource(uri string) (SkillResource, bool) {
	for _, r := range s.Resources {
		if r.URI == uri {
			return r, true
		}
	}
	return SkillResource{}, false
}

// ListSkillsResult is a skills/list result.
type ListSkillsResult struct {
	Skills     []Skill `json:"skills"`
	NextCursor string  `json:"nextCursor,omitempty"`
	TTLMs      int64   `json:"ttlMs"`
	CacheScope string  `json:"cacheScope"`
}

// GetSkillResult is a skills/get result.
type GetSkillResult struct {
	Skill      Skill  `json:"skill"`
	TTLMs      int64  `json:"ttlMs"`
	CacheScope string `json:"cacheScope"`
}

// DirectoryResource is one child in a resources/directory/read result: a
// file, or a directory (MIMEType SkillDirectoryMIMEType).
type DirectoryResource struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
	Size        int64  `json:"size,omitempty"`
}

// ReadDirectoryResult is a resources/directory/read result.
type ReadDirectoryResult struct {
	Resources  []DirectoryResource `json:"resources"`
	NextCursor string              `json:"nextCursor,omitempty"`
	TTLMs      int64               `json:"ttlMs"`
	CacheScope string              `json:"cacheScope"`
}
