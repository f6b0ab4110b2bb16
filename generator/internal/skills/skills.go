// Package skills reads a directory of Agent Skills at generate time, for
// the MCP Skills extension (SEP-2640, //rpcgen:skills): it finds each skill
// (a directory with a SKILL.md), checks its frontmatter, name, file names
// and limits, and computes each file's SHA-256 digest, size and media type,
// so that a server serves the skills without hashing anything.
package skills

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// Limits a skill is held to, as the Skills extension sets them: files
// (SKILL.md included) and their total size in bytes.
const (
	MaxFiles = 512
	MaxBytes = 16 << 20
)

// Set is the skills of one directory.
type Set struct {
	// Dir is the directory as the directive names it, slash-separated,
	// relative to the package's directory.
	Dir    string
	Skills []Skill
}

// Skill is one skill.
type Skill struct {
	// Path is the skill's directory relative to Set.Dir: its URI is
	// skill://Path/SKILL.md, and its last segment is Name.
	Path              string
	Name, Description string
	// Frontmatter is the SKILL.md's frontmatter as a compact JSON object.
	Frontmatter []byte
	// Files are the skill's files, SKILL.md first, then by path.
	Files []File
}

// URI is the skill's SKILL.md URI.
func (s *Skill) URI() string { return "skill://" + s.Path + "/SKILL.md" }

// File is one file of a skill.
type File struct {
	// Rel is the file's path relative to the skill's directory.
	Rel string
	// Embed is its path relative to the package's directory, as go:embed
	// and an embed.FS name it.
	Embed    string
	Digest   string // sha256:<64 lowercase hex digits>
	Size     int64
	MIMEType string
	// Text says the bytes are UTF-8 text without NUL.
	Text bool
}

// Reporter reports a problem at a position.
type Reporter func(pos token.Position, format string, args ...any)

var (
	nameRE    = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$`)
	segmentRE = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._-]*$`)
)

// known are the frontmatter fields of the Agent Skills specification.
var known = []string{"name", "description", "license", "compatibility", "allowed-tools", "metadata"}

// Read reads the skills under dir (slash-separated, relative to pkgDir),
// recording each file it reads with readFile, and reports each problem at
// its position (at, the directive's, when the problem has no place in a
// file). It returns nil after a problem.
func Read(pkgDir, dir string, at token.Position, readFile func(string) ([]byte, error), report Reporter) *Set {
	root := filepath.Join(pkgDir, filepath.FromSlash(dir))
	_, _ = readFile(ListingPrefix + root) // recorded: the output depends on which files there are
	fsys := os.DirFS(root)
	var skillDirs, files []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != "." && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil // hidden files (.DS_Store) are not part of a skill
		}
		switch {
		case d.IsDir():
		case d.Type().IsRegular():
			if d.Name() == "SKILL.md" {
				skillDirs = append(skillDirs, path.Dir(p))
			}
			files = append(files, p)
		default:
			report(fileAt(root, dir, p), "%s is neither a file nor a directory (a symbolic link?): a skill holds regular files", p)
		}
		return nil
	})
	if err != nil {
		report(at, "//rpcgen:skills dir=%s: %v", dir, unwrapPath(err))
		return nil
	}
	if len(skillDirs) == 0 {
		report(at, "//rpcgen:skills dir=%s: no skill found (a skill is a directory holding a SKILL.md)", dir)
		return nil
	}
	set := &Set{Dir: dir}
	ok := true
	owner := func(p string) string {
		for _, sd := range skillDirs {
			if strings.HasPrefix(p, sd+"/") {
				return sd
			}
		}
		return ""
	}
	byDir := map[string][]string{}
	for _, f := range files {
		sd := owner(f)
		switch {
		case sd == "":
			report(fileAt(root, dir, f), "%s is in no skill: a skill is a directory holding a SKILL.md, below %s", f, dir)
			ok = false
		case path.Base(f) == "SKILL.md" && path.Dir(f) != sd:
			report(fileAt(root, dir, f), "%s is a skill inside the skill %s: skills do not nest", f, sd)
			ok = false
		default:
			byDir[sd] = append(byDir[sd], f)
		}
	}
	names := map[string]string{}
	for _, sd := range skillDirs {
		if sd == "." {
			report(fileAt(root, dir, "SKILL.md"), "the SKILL.md is %s itself: put each skill in a directory of its own, named as the skill", dir)
			ok = false
			continue
		}
		sk := readSkill(root, dir, sd, byDir[sd], readFile, report)
		if sk == nil {
			ok = false
			continue
		}
		if prev, dup := names[sk.Name]; dup {
			report(fileAt(root, dir, sd+"/SKILL.md"), "skill name %q is taken by %s too: names must be unique within a server", sk.Name, prev)
			ok = false
		}
		names[sk.Name] = sd
		set.Skills = append(set.Skills, *sk)
	}
	if !ok {
		return nil
	}
	return set
}

// readSkill reads the skill in directory sd (below root) of the files files.
func readSkill(root, dir, sd string, files []string, readFile func(string) ([]byte, error), report Reporter) *Skill {
	md := sd + "/SKILL.md"
	mdAt := fileAt(root, dir, md)
	ok := true
	for _, seg := range strings.Split(sd, "/") {
		if !segmentRE.MatchString(seg) {
			report(mdAt, "skill directory %s: segment %q of its URI must hold only letters, digits, ., _ and - (not first)", sd, seg)
			ok = false
		}
	}
	sk := &Skill{Path: sd}
	slices.SortFunc(files, func(a, b string) int {
		switch {
		case a == md:
			return -1
		case b == md:
			return 1
		}
		return strings.Compare(a, b)
	})
	if len(files) > MaxFiles {
		report(mdAt, "skill %s has %d files: the Skills extension's limit is %d, SKILL.md included", sd, len(files), MaxFiles)
		ok = false
	}
	var total int64
	var mdSrc []byte
	for _, f := range files {
		rel := strings.TrimPrefix(f, sd+"/")
		for _, seg := range strings.Split(rel, "/") {
			if !segmentRE.MatchString(seg) {
				report(fileAt(root, dir, f), "file name %q: use letters, digits, ., _ and - (not first), which a URI and go:embed take as they are", seg)
				ok = false
			}
		}
		src, err := readFile(filepath.Join(root, filepath.FromSlash(f)))
		if err != nil {
			report(fileAt(root, dir, f), "%v", unwrapPath(err))
			ok = false
			continue
		}
		if f == md {
			mdSrc = src
		}
		sum := sha256.Sum256(src)
		total += int64(len(src))
		text := utf8.Valid(src) && !strings.ContainsRune(string(src), 0)
		sk.Files = append(sk.Files, File{
			Rel: rel, Embed: path.Join(dir, f),
			Digest: "sha256:" + hex.EncodeToString(sum[:]), Size: int64(len(src)),
			MIMEType: mimeType(rel, text), Text: text,
		})
	}
	if total > MaxBytes {
		report(mdAt, "skill %s holds %d bytes: the Skills extension's limit is %d", sd, total, MaxBytes)
		ok = false
	}
	if mdSrc == nil {
		return nil
	}
	fields, perr := readFrontmatter(mdSrc)
	if perr != nil {
		report(token.Position{Filename: mdAt.Filename, Line: perr.line, Column: perr.col}, "%s", perr.msg)
		return nil
	}
	get := func(k string) *field {
		for i := range fields {
			if fields[i].key == k {
				return &fields[i]
			}
		}
		return nil
	}
	pos := func(f *field) token.Position {
		return token.Position{Filename: mdAt.Filename, Line: f.line, Column: f.col}
	}
	vpos := func(f *field) token.Position {
		return token.Position{Filename: mdAt.Filename, Line: f.vline, Column: f.vcol}
	}
	for i := range fields {
		f := &fields[i]
		switch {
		case !slices.Contains(known, f.key):
			report(pos(f), "frontmatter field %q is not one of the Agent Skills specification's: %s", f.key, strings.Join(known, ", "))
			ok = false
		case f.key == "metadata" && !f.hasMapping:
			report(pos(f), "metadata must be a mapping of string keys to string values")
			ok = false
		case f.key != "metadata" && f.hasMapping:
			report(pos(f), "%s must be a string", f.key)
			ok = false
		}
		for j := range f.mapping {
			if strings.HasPrefix(f.mapping[j].key, "io.modelcontextprotocol/") {
				report(pos(&f.mapping[j]), "metadata keys under io.modelcontextprotocol/ are reserved for MCP extensions")
				ok = false
			}
		}
	}
	base := path.Base(sd)
	switch n := get("name"); {
	case n == nil:
		report(token.Position{Filename: mdAt.Filename, Line: 2, Column: 1}, "the frontmatter has no name: give the skill's name, %q (its directory's)", base)
		ok = false
	case n.hasMapping:
		ok = false
	case !nameRE.MatchString(n.str) || strings.Contains(n.str, "--"):
		report(vpos(n), "skill name %q: 1 to 64 lowercase letters, digits and hyphens, without a hyphen first, last or twice in a row", n.str)
		ok = false
	case n.str != base:
		report(vpos(n), "skill name %q differs from its directory's, %q: the last segment of a skill's URI is its name", n.str, base)
		ok = false
	default:
		sk.Name = n.str
	}
	switch d := get("description"); {
	case d == nil:
		report(token.Position{Filename: mdAt.Filename, Line: 2, Column: 1}, "the frontmatter has no description: say what the skill does and when to use it")
		ok = false
	case d.hasMapping:
		ok = false
	case strings.TrimSpace(d.str) == "" || utf8.RuneCountInString(d.str) > 1024:
		report(vpos(d), "the description must hold 1 to 1024 characters, not %d", utf8.RuneCountInString(d.str))
		ok = false
	default:
		sk.Description = d.str
	}
	if c := get("compatibility"); c != nil && utf8.RuneCountInString(c.str) > 500 {
		report(vpos(c), "compatibility must hold at most 500 characters, not %d", utf8.RuneCountInString(c.str))
		ok = false
	}
	if !ok {
		return nil
	}
	sk.Frontmatter = toJSON(fields)
	return sk
}

// readFrontmatter reads the frontmatter of a SKILL.md.
func readFrontmatter(src []byte) ([]field, *posError) {
	lines, err := splitFrontmatter(src)
	if err != nil {
		return nil, err
	}
	return parseFields(lines, 2)
}

// fileAt is the position of the file p (relative to root) itself.
func fileAt(root, dir, p string) token.Position {
	return token.Position{Filename: filepath.Join(root, filepath.FromSlash(p)), Line: 1, Column: 1}
}

// unwrapPath drops the path an fs.PathError adds: the message has it.
func unwrapPath(err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		return fmt.Errorf("%s: %w", filepath.Base(pe.Path), pe.Err)
	}
	return err
}

// mimeTypes are the media types of the usual files of a skill, by
// extension; others are text/plain or application/octet-stream.
var mimeTypes = map[string]string{
	".md": "text/markdown", ".markdown": "text/markdown", ".txt": "text/plain",
	".json": "application/json", ".yaml": "application/yaml", ".yml": "application/yaml",
	".py": "text/x-python", ".sh": "text/x-shellscript", ".js": "text/javascript", ".ts": "text/typescript",
	".html": "text/html", ".css": "text/css", ".csv": "text/csv", ".xml": "application/xml",
	".svg": "image/svg+xml", ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg",
	".gif": "image/gif", ".pdf": "application/pdf",
}

func mimeType(name string, text bool) string {
	if m, ok := mimeTypes[strings.ToLower(path.Ext(name))]; ok {
		return m
	}
	if text {
		return "text/plain"
	}
	return "application/octet-stream"
}

// ListingPrefix marks a name Read asks its readFile for that is not a file:
// "listing:" and a directory, whose answer does not matter but whose
// recording does. A caller that records what a run read (the output cache)
// records ListingDigest of the directory under that name, so that a file
// added to or removed from a skills directory invalidates the output.
const ListingPrefix = "listing:"

// ListingDigest is the hex SHA-256 of the names of everything under dir
// (relative, slash-separated, sorted, with a / after each directory), ""
// when dir cannot be walked.
func ListingDigest(dir string) string {
	var names []string
	err := fs.WalkDir(os.DirFS(dir), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			p += "/"
		}
		names = append(names, p)
		return nil
	})
	if err != nil {
		return ""
	}
	sum := sha256.Sum256([]byte(strings.Join(names, "\n")))
	return hex.EncodeToString(sum[:])
}
