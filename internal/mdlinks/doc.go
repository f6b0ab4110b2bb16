// Package mdlinks holds the test that keeps the repository's Markdown
// navigable: every relative link in a .md file names a file or directory that
// exists, and every #fragment a heading of the page it points at. It has no
// code of its own.
package mdlinks
