package cli

import (
	"encoding/json"
	"testing"
)

func TestVersion(t *testing.T) {
	t.Parallel()
	code, out, stderr := execute(t, "", "version", "--output", "json")
	var v map[string]string
	if err := json.Unmarshal([]byte(out), &v); code != 0 || err != nil || v["version"] == "" || v["go"] == "" {
		t.Fatalf("version: exit %d, %q %q", code, out, stderr)
	}
	if code, _, _ := execute(t, "", "version", "--output", "yaml"); code != 2 {
		t.Fatalf("version --output yaml: exit %d, want 2", code)
	}
	if _, err := parse(t, (*app).versionCmd, "", "extra"); err == nil {
		t.Fatal("version with an argument accepted")
	}
}
