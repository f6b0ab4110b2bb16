// Package genbench measures the rpcgen generator against the floor of what
// any go/packages-based generator must do, and against moq and mockgen.
//
// Inputs. At start the benchmark writes a synthetic module (the same bytes
// every time) to a temporary directory and completes its go.sum offline
// from the module cache: iface10 is one interface of ten methods over a few
// small types; nested200 is one interface of 200 documented methods whose
// params and results are four-level trees of documented structs (slices,
// maps, pointers, time.Time, jsonschema tags, string and integer enums with
// const blocks) declared mostly in a second package of the module, so doc
// comments of a dependency are read too; ifaces50x20 is 50 interfaces of 20
// methods each in one package, generated into one file; heavydeps is
// iface10's interface in a package that imports a large part of the
// standard library (net/http, crypto/tls, crypto/x509, encoding/xml,
// go/types, database/sql, html/template...) and two third-party modules
// (golang.org/x/tools/go/packages, github.com/invopop/jsonschema), so that
// go/packages has many dependencies to find and read export data for.
//
// Tools. Each is built once with the go command from the bench module and
// run as a subprocess from the package directory, the way go generate runs
// it, writing to a file outside the input module that is checked (exit
// status 0, non-empty, names the last interface) and removed after every
// run: impl=rpcgen is cmd/rpcgen with the interfaces and --out; the floor,
// impl=packagesload, is cmd/loadfloor, which only calls packages.Load in
// rpcgen's mode (NeedName|NeedFiles|NeedSyntax|NeedTypes) on the same
// package and writes the names it declares; impl=moq is
// github.com/matryer/moq; impl=mockgen is go.uber.org/mock/mockgen in
// package mode, which loads the package and all its dependencies from
// source with go/packages (NeedDeps|NeedTypesInfo|LoadSyntax). moq and
// mockgen build against the golang.org/x/tools version bench/go.mod
// selects, the same one rpcgen and the floor use.
//
// Cache states. warm runs the same unchanged input again and again after one
// untimed run, so the build cache holds the export data of the package and
// its dependencies. edited rewrites the file declaring the interfaces before
// every run, outside the timer, appending an unexported function that no
// run of any process has seen, so go list must compile the package again
// and go/packages must type-check it again: the edit a programmer makes to
// the implementation next to the interfaces. api-edited instead adds a line
// to the doc comment of the first interface's first method, different every
// time, which changes every tool's output (the method's description is in
// it), so that no cache of a tool's own can answer. impl=rpcgen keeps its
// caches (RPCGEN_CACHE in the Env), and answers warm and edited from its
// output cache, api-edited only after emitting and formatting afresh;
// impl=rpcgen-nocache is the same binary with --no-cache. With
// GENBENCH_BASE naming another checkout of the repository, impl=rpcgen-base
// is cmd/rpcgen built from it, run as impl=rpcgen is but with a cache of
// its own, so that one run compares a change with the commit before it.
// warm-inplace and edited-inplace repeat warm and edited with rpcgen
// writing its default output file into the package, where the previous run
// left it, as every go generate but the first does; rpcgen then parses that
// file as an empty file of the package. Only rpcgen (and rpcgen-base) and
// the floor run in these rows; the floor loads the package without rpcgen's
// output, which is the package rpcgen type-checks.
//
// The floor is a floor for generators that call packages.Load; rpcgen no
// longer does for the package itself. packages.Load in this mode has go
// list compile the package for export data that nobody reads (the package
// is type-checked from source), and after an edit that compile is most of
// its time. rpcgen lists the package's files with go list -find (an answer
// it caches), loads only its imports' export data, and type-checks the
// files itself, so it runs below the floor in the edited states: that is
// work every packages.Load-based generator does and rpcgen does not.
//
// Metrics. BenchmarkGenerator/<input>/<state>/impl=<tool>: ns/op is
// the wall time of one run, process start included; cpu-ms/op is the user
// plus system time of the tool and of the processes it waited for (go list,
// and the compiler when the package was edited); peak-RSS-MiB is the largest peak
// resident set among those processes over the runs (the kernel reports the
// maximum over a process and its waited-for descendants, so a tool's own
// heap shows only when it exceeds go list's). BenchmarkCheck times rpcgen
// --check on the largest input's output with a hand edit every 400 lines
// (bounds: 1 s and 100 MiB). BenchmarkGeneratorInProcess
// calls generator.Generate, and packages.Load for the floor, inside the test
// process, for -cpuprofile and -memprofile of rpcgen's own work.
package genbench
