package main

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"
)

// git runs git in repo and returns its output, or an error holding what it
// said on stderr.
func git(repo string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = repo
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, bytes.TrimSpace(stderr.Bytes()))
	}
	return string(out), nil
}

// uncommitted lists what git status reports in repo: changed, new or
// deleted files that a tag would not hold.
func uncommitted(repo string) ([]string, error) {
	out, err := git(repo, "status", "--porcelain")
	if err != nil {
		return nil, err
	}
	var lines []string
	for l := range strings.SplitSeq(strings.TrimRight(out, "\n"), "\n") {
		if l != "" {
			lines = append(lines, l)
		}
	}
	return lines, nil
}

// tagExists reports whether repo has the tag name.
func tagExists(repo, name string) (bool, error) {
	out, err := git(repo, "tag", "--list", name)
	if err != nil {
		return false, err
	}
	return strings.TrimSpace(out) == name, nil
}
