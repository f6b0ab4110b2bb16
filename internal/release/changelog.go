package main

import (
	"fmt"
	"regexp"
	"strings"
)

// changelogFile is the changelog, in the Keep a Changelog format.
const changelogFile = "CHANGELOG.md"

// repoURL is where the changelog's version links point.
const repoURL = "https://github.com/rpcgen/rpcgen"

var (
	releaseHeading = regexp.MustCompile(`(?m)^## \[(\d+\.\d+\.\d+[^\]]*)\]`)
	unreleasedLink = regexp.MustCompile(`(?m)^\[Unreleased\]: .*$`)
)

// releaseChangelog turns the changelog's Unreleased section into the
// section of version (v0.2.0 heads "## [0.2.0] - date"), under a new empty
// Unreleased one, and updates the links at the end: Unreleased compares
// from the new tag, and the new version compares from the one before (or
// points at its tag, for the first). A note between the Unreleased
// heading and its first subsection ("Nothing has been tagged yet...")
// goes; a section with no entry is an error, as is a version the
// changelog already has.
func releaseChangelog(text, version, date string) (string, error) {
	number := strings.TrimPrefix(version, "v")
	const heading = "## [Unreleased]\n"
	start := strings.Index(text, heading)
	if start < 0 {
		return "", fmt.Errorf("%s has no %q heading", changelogFile, strings.TrimSpace(heading))
	}
	body := text[start+len(heading):]
	end := len(body)
	var previous string
	if m := releaseHeading.FindStringSubmatchIndex(body); m != nil {
		end = m[0]
		previous = body[m[2]:m[3]]
	}
	if hasRelease(text, version) {
		return "", fmt.Errorf("%s already has a section for %s", changelogFile, number)
	}
	section := body[:end]
	if link := unreleasedLink.FindStringIndex(section); link != nil {
		section = section[:link[0]] // the first release: the links follow the section
	}
	sub := strings.Index(section, "\n### ")
	if strings.HasPrefix(section, "### ") {
		sub = 0
	} else if sub >= 0 {
		sub++
	}
	if sub < 0 || !strings.Contains(section[sub:], "\n- ") {
		return "", fmt.Errorf("%s: the Unreleased section has no entry to release", changelogFile)
	}
	entries := strings.TrimRight(section[sub:], "\n") + "\n\n"

	var b strings.Builder
	b.WriteString(text[:start])
	b.WriteString(heading + "\n")
	fmt.Fprintf(&b, "## [%s] - %s\n\n", number, date)
	b.WriteString(entries)
	b.WriteString(body[len(section):])
	out := b.String()

	links := "[Unreleased]: " + repoURL + "/compare/" + version + "...HEAD\n"
	if previous != "" {
		links += fmt.Sprintf("[%s]: %s/compare/v%s...%s", number, repoURL, previous, version)
	} else {
		links += fmt.Sprintf("[%s]: %s/releases/tag/%s", number, repoURL, version)
	}
	if unreleasedLink.MatchString(out) {
		out = unreleasedLink.ReplaceAllLiteralString(out, links)
	} else {
		out = strings.TrimRight(out, "\n") + "\n\n" + links + "\n"
	}
	return out, nil
}

// hasRelease reports whether the changelog has a section for version.
func hasRelease(text, version string) bool {
	return strings.Contains(text, "\n## ["+strings.TrimPrefix(version, "v")+"]")
}
