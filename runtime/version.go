package runtime

// SupportsGeneratedV1 is referenced by every file rpcgen generates
// (`const _ = runtime.SupportsGeneratedV1`), so code generated for a runtime API this
// package no longer provides fails to compile with a message that names the skew,
// instead of failing somewhere deep inside a generated method.
const SupportsGeneratedV1 = true
