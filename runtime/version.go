package runtime

// Version is the release of the module github.com/rpcgen/rpcgen that this
// runtime (and the generator beside it) belongs to. The release procedure
// (docs/releasing.md) sets it in the commit it tags, and every module of
// the repository then requires the others at this version; it stays as
// it is until the next release, so a build of a later commit reports the
// last release. The module's exact version and revision are what
// go version -m (or rpcgen --version) prints. Before the first release it
// is the version that release will have.
const Version = "v0.1.0"
