// Package rpcimpl is for code that rpcgen generates, and for nothing else: a
// program never needs to call it, and what users call is in package runtime
// (and runtime/mcp).
//
// It holds what generated methods are made of: the Decoder that reads and
// validates a method's params in one pass, with no reflection (NewDecoder,
// NewFields, NoParams and the checks MultipleOf and HasDuplicates), the same
// Decoder reading a result as encoding/json would (NewResultDecoder, with
// ResultOf, Call and CallIdempotent, which a generated client calls), Result
// and AppendResult, which a generated dispatcher returns, the pieces a
// generated result encoder appends with (AppendString, AppendFloat64,
// AppendTime, AppendAny, ..., and EncodeFailed, which sends a value
// encoding/json refuses back to AppendResult or Result), the pooled Buffer
// a generated dispatcher encodes a result into, StreamError, which a
// generated client returns for a stream it could not call, and the version
// guards (IsAtLeastVersion0_1_0 and its successors, in version.go).
//
// Its API follows the generator, not the compatibility promise of the
// runtime's packages: it may change in any release, together with the code
// the generator of that release writes. What stays is the version guards: a
// runtime keeps the guard of every release whose generated code it still
// builds, so a generated file names the release it needs and a
// generator/runtime skew is a compile error that says so. The package uses
// the standard library only.
package rpcimpl
