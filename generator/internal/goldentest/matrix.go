package goldentest

import (
	"maps"
	"os"
	"slices"
	"testing"
)

// ExhaustiveEnv names the environment variable that makes the equivalence
// matrices run over every golden case: RPCGEN_EXHAUSTIVE=1 go test
// ./generator/... (.ci/run does). A matrix repeats one check of an
// implementation detail for each case (the generator's cache gives what a
// run without it gives, under random edits; the loader's fast path reads
// what packages.Load reads; shared schemas give what deep copies give;
// Generate gives the golden output Cache.Generate gives), so its cost
// grows with the corpus while what it finds does not: a default run covers
// a sample, and the golden tests every case through Cache.Generate.
const ExhaustiveEnv = "RPCGEN_EXHAUSTIVE"

// matrixSample is how many golden cases a matrix covers in a default run.
const matrixSample = 10

// Exhaustive reports whether the matrices run over every golden case.
func Exhaustive() bool { return os.Getenv(ExhaustiveEnv) == "1" }

// Matrix returns the names of the cases, sorted, that a matrix covers:
// every one when Exhaustive, otherwise matrixSample of them spread evenly
// over the sorted names, and "basic" when it is a case. Which ones
// depends only on the names, so a default run is as repeatable as a full
// one. It logs how many it chose, and how to run them all.
func Matrix[C any](t *testing.T, cases map[string]C) []string {
	t.Helper()
	names := slices.Sorted(maps.Keys(cases))
	if Exhaustive() || len(names) <= matrixSample {
		return names
	}
	picked := make([]string, 0, matrixSample+1)
	for i := range matrixSample {
		picked = append(picked, names[i*len(names)/matrixSample])
	}
	if _, ok := cases["basic"]; ok && !slices.Contains(picked, "basic") {
		picked = append(picked, "basic")
	}
	slices.Sort(picked)
	t.Logf("%d of %d golden cases (%s=1 runs every one)", len(picked), len(names), ExhaustiveEnv)
	return picked
}
