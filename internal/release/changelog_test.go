package main

import (
	"strings"
	"testing"
)

const firstChangelog = `# Changelog

Intro.

## [Unreleased]

Nothing has been tagged yet: everything below is what the first release will hold.

### Added

- **A thing**: it does things.

### Fixed

- A bug.

[Unreleased]: https://github.com/rpcgen/rpcgen/commits/main
`

// TestReleaseChangelog: the first release and the next one, as Keep a
// Changelog lays them out, and the changelogs that cannot be released.
func TestReleaseChangelog(t *testing.T) {
	got, err := releaseChangelog(firstChangelog, "v0.1.0", "2026-12-03")
	if err != nil {
		t.Fatal(err)
	}
	want := `# Changelog

Intro.

## [Unreleased]

## [0.1.0] - 2026-12-03

### Added

- **A thing**: it does things.

### Fixed

- A bug.

[Unreleased]: https://github.com/rpcgen/rpcgen/compare/v0.1.0...HEAD
[0.1.0]: https://github.com/rpcgen/rpcgen/releases/tag/v0.1.0
`
	if got != want {
		t.Fatalf("first release:\n%s\nwant:\n%s", got, want)
	}

	// The next release: entries added under the empty Unreleased section.
	next := strings.Replace(got, "## [Unreleased]\n\n", "## [Unreleased]\n\n### Changed\n\n- Something else.\n\n", 1)
	got, err = releaseChangelog(next, "v0.2.0", "2027-01-05")
	if err != nil {
		t.Fatal(err)
	}
	want = `# Changelog

Intro.

## [Unreleased]

## [0.2.0] - 2027-01-05

### Changed

- Something else.

## [0.1.0] - 2026-12-03

### Added

- **A thing**: it does things.

### Fixed

- A bug.

[Unreleased]: https://github.com/rpcgen/rpcgen/compare/v0.2.0...HEAD
[0.2.0]: https://github.com/rpcgen/rpcgen/compare/v0.1.0...v0.2.0
[0.1.0]: https://github.com/rpcgen/rpcgen/releases/tag/v0.1.0
`
	if got != want {
		t.Fatalf("second release:\n%s\nwant:\n%s", got, want)
	}
	if !hasRelease(got, "v0.2.0") || !hasRelease(got, "v0.1.0") || hasRelease(got, "v0.3.0") {
		t.Error("hasRelease")
	}

	for _, tt := range []struct{ name, text, version, err string }{
		{"nothing unreleased", got, "v0.3.0", "the Unreleased section has no entry to release"},
		{"only a note", "## [Unreleased]\n\nNothing yet.\n", "v0.1.0", "no entry to release"},
		{"a released version", next, "v0.1.0", "already has a section for 0.1.0"},
		{"no Unreleased heading", "# Changelog\n", "v0.1.0", `no "## [Unreleased]" heading`},
	} {
		if _, err := releaseChangelog(tt.text, tt.version, "2027-01-05"); err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.err)
		}
	}
}
