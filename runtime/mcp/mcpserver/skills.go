package mcpserver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/internal/jsonenc"
	"github.com/rpcgen/rpcgen/runtime/mcp"
)

// Skills is a set of skills a server serves through the Skills extension
// (SEP-2640, mcp.SkillsExtensionID): each skill's entry, computed
// beforehand (rpcgen's //rpcgen:skills reads a skills directory at generate
// time, checks it and computes every file's digest and size), and the file
// system that holds the files. Nothing is hashed while serving.
type Skills struct {
	// FS holds the skills' files.
	FS fs.FS
	// Skills are the skills, in the order skills/list lists them.
	Skills []ServedSkill
	// TTL and CacheScope are the cache hints of skills/list, skills/get and
	// resources/directory/read results ("ttlMs", "cacheScope"): how long a
	// client may reuse one (0: not at all) and whether it may share it with
	// other users ("public", the default) or not ("private").
	TTL        time.Duration
	CacheScope string
}

// ServedSkill is one skill: its entry and where its files are.
type ServedSkill struct {
	// Entry is what skills/list and skills/get carry: the SKILL.md's URI,
	// its frontmatter and every file's URI, digest and size, SKILL.md
	// first.
	Entry mcp.Skill
	// Name and Description are the frontmatter's, for resources/list.
	Name, Description string
	// Files has one element for each of Entry.Resources, in the same order.
	Files []SkillFile
}

// SkillFile says where one file of a skill is and how it is served.
type SkillFile struct {
	// Path is the file's path in Skills.FS.
	Path string
	// MIMEType is the file's media type ("text/markdown" for SKILL.md).
	MIMEType string
	// Text says the file's bytes are UTF-8 text, served as "text"; others
	// are served as "blob" (base64).
	Text bool
}

// skillsServer answers the Skills extension's methods for one Skills.
type skillsServer struct {
	set    Skills
	cache  string                  // ,"ttlMs":N,"cacheScope":"…"
	list   json.RawMessage         // the skills/list result, all of it
	byURI  map[string]*ServedSkill // by the SKILL.md's URI
	dirs   map[string][]mcp.DirectoryResource
	isFile map[string]bool
}

// AddSkills serves set: it declares the Skills extension with
// "directoryRead": true, answers skills/list, skills/get and
// resources/directory/read (for clients that declared the extension and
// those that did not), and adds each file of each skill as a resource,
// which resources/read serves from set.FS: SKILL.md with the skill's name
// and description, another file named <skill>/<path in the skill>. It panics on a programmer error: a skill whose Files do
// not match its Entry.Resources, an entry whose URI is not a skill://
// SKILL.md or whose files are outside its directory, a URI served twice, or
// an extension already added.
func (s *Server) AddSkills(set Skills) {
	if set.CacheScope == "" {
		set.CacheScope = "public"
	}
	if set.CacheScope != "public" && set.CacheScope != "private" {
		panic(fmt.Sprintf("mcpserver: AddSkills: CacheScope %q is neither public nor private", set.CacheScope))
	}
	k := &skillsServer{
		set:    set,
		cache:  `,"ttlMs":` + strconv.FormatInt(set.TTL.Milliseconds(), 10) + `,"cacheScope":"` + set.CacheScope + `"`,
		byURI:  map[string]*ServedSkill{},
		dirs:   map[string][]mcp.DirectoryResource{},
		isFile: map[string]bool{},
	}
	entries := make([]mcp.Skill, len(set.Skills))
	var resources []Resource
	for i := range set.Skills {
		sk := &set.Skills[i]
		e := &sk.Entry
		if !strings.HasPrefix(e.URI, "skill://") || !strings.HasSuffix(e.URI, "/SKILL.md") {
			panic(fmt.Sprintf("mcpserver: AddSkills: skill URI %q is not skill://<skill-path>/SKILL.md", e.URI))
		}
		if len(sk.Files) != len(e.Resources) || len(e.Resources) == 0 || e.Resources[0].URI != e.URI {
			panic(fmt.Sprintf("mcpserver: AddSkills: skill %s: Files must match Entry.Resources, SKILL.md first", e.URI))
		}
		if k.byURI[e.URI] != nil {
			panic(fmt.Sprintf("mcpserver: AddSkills: skill %s is listed twice", e.URI))
		}
		k.byURI[e.URI] = sk
		entries[i] = *e
		dir := e.Dir()
		k.addDir(dir)
		for j, r := range e.Resources {
			f := sk.Files[j]
			if !strings.HasPrefix(r.URI, dir+"/") || k.isFile[r.URI] {
				panic(fmt.Sprintf("mcpserver: AddSkills: skill %s: file %q is outside the skill's directory or listed twice", e.URI, r.URI))
			}
			k.isFile[r.URI] = true
			parent, name := path.Split(r.URI)
			parent = strings.TrimSuffix(parent, "/")
			for d := parent; d != dir && strings.HasPrefix(d, dir+"/"); d = d[:strings.LastIndexByte(d, '/')] {
				k.addDir(d)
			}
			k.dirs[parent] = append(k.dirs[parent], mcp.DirectoryResource{URI: r.URI, Name: name, MIMEType: f.MIMEType, Size: r.Size})
			res := Resource{URI: r.URI, Name: sk.Name + "/" + strings.TrimPrefix(r.URI, dir+"/"), MIMEType: f.MIMEType, Size: r.Size,
				Description: "A file of the skill " + sk.Name + ".", Handler: k.read(r.URI, f)}
			if j == 0 {
				res.Name, res.Description = sk.Name, sk.Description
			}
			resources = append(resources, res)
		}
	}
	for d, kids := range k.dirs {
		slices.SortFunc(kids, func(a, b mcp.DirectoryResource) int { return strings.Compare(a.URI, b.URI) })
		k.dirs[d] = kids
	}
	list, err := json.Marshal(entries)
	if err != nil {
		panic("mcpserver: AddSkills: " + err.Error())
	}
	k.list = json.RawMessage(`{"skills":` + string(list) + k.cache + `}`)
	s.AddExtension(ServerExtension{
		ID:       mcp.SkillsExtensionID,
		Settings: json.RawMessage(`{"directoryRead":true}`),
		Methods: map[string]ExtensionHandler{
			mcp.MethodSkillsList:             k.serveList,
			mcp.MethodSkillsGet:              k.serveGet,
			mcp.MethodResourcesDirectoryRead: k.serveDirectory,
		},
		ServeUndeclared: true,
	})
	s.AddResources(resources...)
}

// addDir records the directory at uri, and itself as a child of its parent
// when the parent is a directory of a skill.
func (k *skillsServer) addDir(uri string) {
	if _, ok := k.dirs[uri]; ok {
		return
	}
	k.dirs[uri] = []mcp.DirectoryResource{}
	parent, name := path.Split(uri)
	parent = strings.TrimSuffix(parent, "/")
	if _, ok := k.dirs[parent]; ok {
		k.dirs[parent] = append(k.dirs[parent], mcp.DirectoryResource{URI: uri, Name: name, MIMEType: mcp.SkillDirectoryMIMEType})
	}
}

// read returns the handler of resources/read for the file at uri.
func (k *skillsServer) read(uri string, f SkillFile) ResourceHandler {
	return func(context.Context, *ReadResourceRequest) ([]mcp.ResourceContents, error) {
		b, err := fs.ReadFile(k.set.FS, f.Path)
		if err != nil {
			return nil, fmt.Errorf("read skill file %s: %w", uri, err)
		}
		c := mcp.ResourceContents{URI: uri, MIMEType: f.MIMEType}
		if f.Text {
			c.Text = string(b)
		} else {
			c.Blob = base64.StdEncoding.EncodeToString(b)
		}
		return []mcp.ResourceContents{c}, nil
	}
}

// skillParams are the params of the Skills extension's requests.
type skillParams struct {
	URI    *string `json:"uri"`
	Cursor *string `json:"cursor"`
}

func decodeSkillParams(params json.RawMessage, needURI bool) (skillParams, error) {
	var p skillParams
	if err := json.Unmarshal(params, &p); err != nil {
		return p, runtime.InvalidParams("%v", err)
	}
	if needURI && (p.URI == nil || *p.URI == "") {
		return p, runtime.InvalidParams(`"uri" must be a non-empty string`)
	}
	if p.Cursor != nil {
		// Every result is a single page: no cursor was ever handed out.
		return p, runtime.InvalidParams("unknown cursor %q", *p.Cursor)
	}
	return p, nil
}

// serveList answers skills/list.
func (k *skillsServer) serveList(_ context.Context, params json.RawMessage) (any, error) {
	if _, err := decodeSkillParams(params, false); err != nil {
		return nil, err
	}
	return k.list, nil
}

// serveGet answers skills/get.
func (k *skillsServer) serveGet(_ context.Context, params json.RawMessage) (any, error) {
	p, err := decodeSkillParams(params, true)
	if err != nil {
		return nil, err
	}
	sk := k.byURI[*p.URI]
	if sk == nil {
		return nil, runtime.InvalidParams("no skill at %q", *p.URI)
	}
	entry, err := json.Marshal(&sk.Entry)
	if err != nil {
		return nil, err
	}
	return json.RawMessage(`{"skill":` + string(entry) + k.cache + `}`), nil
}

// serveDirectory answers resources/directory/read.
func (k *skillsServer) serveDirectory(_ context.Context, params json.RawMessage) (any, error) {
	p, err := decodeSkillParams(params, true)
	if err != nil {
		return nil, err
	}
	kids, ok := k.dirs[strings.TrimSuffix(*p.URI, "/")]
	if !ok {
		what := "no directory the server serves"
		if k.isFile[*p.URI] {
			what = "a file, not a directory"
		}
		b := jsonenc.AppendString(nil, *p.URI)
		return nil, runtime.InvalidParams("%s is %s", b, what)
	}
	res, err := json.Marshal(kids)
	if err != nil {
		return nil, err
	}
	return json.RawMessage(`{"resources":` + string(res) + k.cache + `}`), nil
}
