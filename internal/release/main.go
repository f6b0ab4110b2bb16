// Command release prepares and tags a release of rpcgen's modules: the
// root module, github.com/rpcgen/rpcgen, tagged vX.Y.Z, and each module
// under ext/, tagged with its directory in front (ext/otel/vX.Y.Z), in
// dependency order. docs/releasing.md is the procedure; from the
// repository's root:
//
//	go run ./internal/release plan              # the modules, their tags, and what is inconsistent
//	go run ./internal/release prepare v0.2.0    # runtime.Version, requirements, CHANGELOG.md
//	go run ./internal/release tag v0.2.0        # after the commit: check it, then tag it
//	go run ./internal/release tag -push origin v0.2.0
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"golang.org/x/mod/semver"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

const usageText = `Usage:
	go run ./internal/release plan [-C dir]
	go run ./internal/release prepare [-C dir] [-date YYYY-MM-DD] vX.Y.Z
	go run ./internal/release tag [-C dir] [-push remote] vX.Y.Z

plan lists the released modules in the order they are tagged, the modules
that only follow, and whatever would stop a release.

prepare sets runtime.Version, makes every module require the repository's
modules at the version, and turns CHANGELOG.md's Unreleased section into the
version's. Review, commit, then tag.

tag checks that the checkout is that commit's, with nothing uncommitted,
and creates the annotated tags, the root's first; -push pushes them to the
remote in that order.
`

// errUsage marks an error in the command line.
var errUsage = errors.New("usage")

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usageText)
		return 2
	}
	var err error
	switch args[0] {
	case "plan":
		err = cmdPlan(args[1:], stdout, stderr)
	case "prepare":
		err = cmdPrepare(args[1:], stdout, stderr)
	case "tag":
		err = cmdTag(args[1:], stdout, stderr)
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, usageText)
		return 0
	default:
		err = fmt.Errorf("%w: unknown command %q", errUsage, args[0])
	}
	switch {
	case errors.Is(err, errUsage):
		fmt.Fprintf(stderr, "release: %v\n\n%s", err, usageText)
		return 2
	case err != nil:
		fmt.Fprintf(stderr, "release: %v\n", err)
		return 1
	}
	return 0
}

// flags parses a command's flags and returns the repository's directory
// and the version argument (when want is true).
func flags(fs *flag.FlagSet, args []string, stderr io.Writer, want bool) (repo, version string, err error) {
	fs.SetOutput(stderr)
	dir := fs.String("C", ".", "the repository's root directory")
	if err := fs.Parse(args); err != nil {
		return "", "", fmt.Errorf("%w: %v", errUsage, err)
	}
	if repo, err = filepath.Abs(*dir); err != nil {
		return "", "", err
	}
	switch {
	case want && fs.NArg() != 1:
		return "", "", fmt.Errorf("%w: %s takes one version, vX.Y.Z", errUsage, fs.Name())
	case !want && fs.NArg() != 0:
		return "", "", fmt.Errorf("%w: %s takes no argument", errUsage, fs.Name())
	case want:
		version = fs.Arg(0)
		if !semver.IsValid(version) || semver.Canonical(version) != version || semver.Build(version) != "" {
			return "", "", fmt.Errorf("%w: %q is not a version vX.Y.Z (or vX.Y.Z-pre)", errUsage, version)
		}
		if semver.Major(version) != "v0" && semver.Major(version) != "v1" {
			return "", "", fmt.Errorf("%s needs a /%s module path, which this tool does not make", version, semver.Major(version))
		}
	}
	return repo, version, nil
}

// problems lists what stops a release at version of the repository at
// repo whose modules are mods: a released module in the wrong place, a
// version guard for a later release, and (when tagging) runtime.Version
// or a requirement at another version.
func problems(repo string, mods []*repoModule, version string, tagging bool) ([]string, error) {
	list := checkPaths(mods)
	beyond, err := guardsBeyond(repo, version)
	if err != nil {
		return nil, err
	}
	list = append(list, beyond...)
	if tagging {
		v, err := readVersion(repo)
		if err != nil {
			return nil, err
		}
		if v != version {
			list = append(list, fmt.Sprintf("%s: Version is %s, not %s (run prepare %s, and commit)", versionFile, v, version, version))
		}
		list = append(list, ownRequirements(mods, version)...)
		text, err := os.ReadFile(filepath.Join(repo, changelogFile))
		if err != nil {
			return nil, err
		}
		if !hasRelease(string(text), version) {
			list = append(list, fmt.Sprintf("%s has no section for %s", changelogFile, strings.TrimPrefix(version, "v")))
		}
	}
	return list, nil
}

func cmdPlan(args []string, stdout, stderr io.Writer) error {
	repo, _, err := flags(flag.NewFlagSet("plan", flag.ContinueOnError), args, stderr, false)
	if err != nil {
		return err
	}
	mods, err := findModules(repo)
	if err != nil {
		return err
	}
	version, err := readVersion(repo)
	if err != nil {
		return err
	}
	order, err := releaseOrder(mods)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 8, 2, ' ', 0)
	fmt.Fprintf(tw, "runtime.Version is %s. Tagged at each release, in this order:\n", version)
	for _, m := range order {
		fmt.Fprintf(tw, "\t%s\t%s\n", m.Tag(version), m.Path)
	}
	fmt.Fprintln(tw, "Following each release (their requirements set, never tagged):")
	for _, m := range mods {
		if !m.Released {
			fmt.Fprintf(tw, "\t%s\t%s\n", m.Dir, m.Path)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	list, err := problems(repo, mods, version, false)
	if err != nil {
		return err
	}
	list = append(list, ownRequirements(mods, version)...)
	if len(list) > 0 {
		return fmt.Errorf("the repository is not ready for a release:\n\t%s", strings.Join(list, "\n\t"))
	}
	return nil
}

func cmdPrepare(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("prepare", flag.ContinueOnError)
	date := fs.String("date", time.Now().UTC().Format(time.DateOnly), "the release's date, for CHANGELOG.md")
	repo, version, err := flags(fs, args, stderr, true)
	if err != nil {
		return err
	}
	if _, err := time.Parse(time.DateOnly, *date); err != nil {
		return fmt.Errorf("%w: -date %q is not YYYY-MM-DD", errUsage, *date)
	}
	mods, err := findModules(repo)
	if err != nil {
		return err
	}
	current, err := readVersion(repo)
	if err != nil {
		return err
	}
	if semver.Compare(version, current) < 0 {
		return fmt.Errorf("%s is older than runtime.Version, %s", version, current)
	}
	if exists, err := tagExists(repo, version); err != nil {
		return err
	} else if exists {
		return fmt.Errorf("%s is tagged already", version)
	}
	if _, err := releaseOrder(mods); err != nil {
		return err
	}
	list, err := problems(repo, mods, version, false)
	if err != nil {
		return err
	}
	if len(list) > 0 {
		return fmt.Errorf("cannot release %s:\n\t%s", version, strings.Join(list, "\n\t"))
	}
	text, err := os.ReadFile(filepath.Join(repo, changelogFile))
	if err != nil {
		return err
	}
	newText, err := releaseChangelog(string(text), version, *date)
	if err != nil {
		return err
	}

	// Everything checked: write.
	if err := setVersion(repo, version); err != nil {
		return err
	}
	changed, err := setRequirements(repo, mods, version)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(repo, changelogFile), []byte(newText), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Prepared %s: %s, %s", version, versionFile, changelogFile)
	for _, c := range changed {
		fmt.Fprintf(stdout, ", %s", c)
	}
	fmt.Fprintf(stdout, ".\nNext: review git diff, run bash .ci/run, commit as \"release %s\", then go run ./internal/release tag %s.\n", version, version)
	return nil
}

func cmdTag(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("tag", flag.ContinueOnError)
	remote := fs.String("push", "", "push the tags to this remote, the root's first")
	repo, version, err := flags(fs, args, stderr, true)
	if err != nil {
		return err
	}
	if dirty, err := uncommitted(repo); err != nil {
		return err
	} else if len(dirty) > 0 {
		return fmt.Errorf("the checkout has changes a tag would not hold:\n\t%s", strings.Join(dirty, "\n\t"))
	}
	mods, err := findModules(repo)
	if err != nil {
		return err
	}
	order, err := releaseOrder(mods)
	if err != nil {
		return err
	}
	list, err := problems(repo, mods, version, true)
	if err != nil {
		return err
	}
	for _, m := range order {
		if exists, err := tagExists(repo, m.Tag(version)); err != nil {
			return err
		} else if exists {
			list = append(list, "tag "+m.Tag(version)+" exists already")
		}
	}
	if len(list) > 0 {
		return fmt.Errorf("cannot tag %s:\n\t%s", version, strings.Join(list, "\n\t"))
	}
	var tags []string
	for _, m := range order {
		name := m.Tag(version)
		if _, err := git(repo, "tag", "-a", name, "-m", m.Path+" "+version); err != nil {
			return err
		}
		tags = append(tags, name)
		fmt.Fprintf(stdout, "tagged %s\n", name)
	}
	if *remote == "" {
		fmt.Fprintf(stdout, "Next: push them, the root's first: git push %s %s && git push %s %s\n",
			"origin", tags[0], "origin", strings.Join(tags[1:], " "))
		return nil
	}
	for _, name := range tags {
		if _, err := git(repo, "push", *remote, "refs/tags/"+name); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "pushed %s to %s\n", name, *remote)
	}
	return nil
}
