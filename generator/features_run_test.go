package generator

import (
	"testing"
)

// TestFeaturesRun generates code for testdata/featurerun/writer.go in a
// module of its own and runs features_test.go there: prompts with enum
// arguments (checked and completed), a resource template with a number
// variable, a completer, the generated typed client, in both eras.
func TestFeaturesRun(t *testing.T) {
	runGeneratedTests(t, "featurerun", "writer", "Writer", []string{"writer.go", "features_test.go"}, nil)
}
