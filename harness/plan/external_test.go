package plan

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dplab/dplab/harness/spec"
)

// externalSpec is a spec with one external block; the worker script and
// module are files in dir.
func externalSpec(t *testing.T, dir, block string) string {
	t.Helper()
	src := `name = "ext"
seed = 1
trials = 2
epsilon = [1, 2]
delta = "1e-5"

[[dataset]]
name = "synthetic-linear"
params = { n = 200, d = 3 }

[[mechanism]]
name = "external"
label = "Mine"
params = { lambda = [0.1, 1] }
` + block
	path := filepath.Join(dir, "spec.toml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func parseFile(path string) (*spec.Spec, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, src)
}

// TestExternalBlock: the command's files are resolved against the spec's
// directory and hashed, the cell keys hold their hashes (an edited script
// re-keys the cells; the same script elsewhere does not), and the params
// table is swept as any mechanism's.
func TestExternalBlock(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "w.py"), []byte("print('v1')\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "lib.py"), []byte("x = 1\n"), 0o644)
	block := `[mechanism.external]
command = ["python3", "w.py", "--flag"]
files = ["lib.py"]
mode = "declare"
timeout = 5
`
	s, err := parseFile(externalSpec(t, dir, block))
	if err != nil {
		t.Fatal(err)
	}
	x := s.Mechanisms[0].External
	want := []string{"python3", filepath.Join(dir, "w.py"), "--flag"}
	if strings.Join(x.Argv, " ") != strings.Join(want, " ") || x.Dir != dir || len(x.SHA256) != 2 || x.SHA256["w.py"] == "" || x.SHA256["lib.py"] == "" {
		t.Fatalf("resolved %+v, want argv %v in %s with two hashes", x, want, dir)
	}
	cells := cellsOf(t, s)
	if len(cells) != 4 || cells[0].Entry.Info.Name != "external" || cells[0].Params["lambda"] != 0.1 {
		t.Fatalf("cells %+v", cells)
	}
	// The same files in another directory: the same keys.
	dir2 := t.TempDir()
	os.WriteFile(filepath.Join(dir2, "w.py"), []byte("print('v1')\n"), 0o644)
	os.WriteFile(filepath.Join(dir2, "lib.py"), []byte("x = 1\n"), 0o644)
	s2, err := parseFile(externalSpec(t, dir2, block))
	if err != nil {
		t.Fatal(err)
	}
	if k2 := cellsOf(t, s2)[0].Key; k2 != cells[0].Key {
		t.Errorf("the same worker in another directory re-keyed its cells: %s vs %s", k2, cells[0].Key)
	}
	// An edited module re-keys them.
	os.WriteFile(filepath.Join(dir2, "lib.py"), []byte("x = 2\n"), 0o644)
	s3, err := parseFile(externalSpec(t, dir2, block))
	if err != nil {
		t.Fatal(err)
	}
	if cellsOf(t, s3)[0].Key == cells[0].Key {
		t.Error("editing a file the worker names kept its cells' keys")
	}
	if got := ExternalFiles(s)["Mine"]; got.Mode != "declare" || got.SHA256["w.py"] != x.SHA256["w.py"] {
		t.Errorf("manifest entry %+v", got)
	}
}

// TestExternalBlockErrors: each mistake is an error at its file, line and key.
func TestExternalBlockErrors(t *testing.T) {
	for _, tc := range []struct {
		name, block, key, want string
	}{
		{"no table", "", "mechanism[0].name", "needs a [mechanism.external] table"},
		{"unknown key", "[mechanism.external]\ncomand = [\"x\"]\nmode = \"declare\"\n", "mechanism[0].external.comand", `did you mean "command"`},
		{"no command", "[mechanism.external]\nmode = \"declare\"\n", "mechanism[0].external.command", "give the worker's argv"},
		{"bad mode", "[mechanism.external]\ncommand = [\"x\"]\nmode = \"guess\"\n", "mechanism[0].external.mode", `"guess"`},
		{"no event", "[mechanism.external]\ncommand = [\"x\"]\nmode = \"calibrate\"\n", "mechanism[0].external.event", "needs the event family"},
		{"no placeholder", "[mechanism.external]\ncommand = [\"x\"]\nmode = \"calibrate\"\nevent = '{\"kind\":\"gaussian\",\"sigma\":1,\"sensitivity\":1}'\n", "mechanism[0].external.event", "placeholder"},
		{"bad event", "[mechanism.external]\ncommand = [\"x\"]\nmode = \"calibrate\"\nevent = '{\"kind\":\"gausian\",\"sigma\":\"$noise\"}'\n", "mechanism[0].external.event", "gausian"},
		{"missing file", "[mechanism.external]\ncommand = [\"x\"]\nmode = \"declare\"\nfiles = [\"nope.py\"]\n", "mechanism[0].external.files", "nope.py"},
		{"bad task", "[mechanism.external]\ncommand = [\"x\"]\nmode = \"declare\"\ntasks = [\"classification\"]\n", "mechanism[0].external.tasks", `unknown task "classification"`},
		{"task mismatch", "[mechanism.external]\ncommand = [\"x\"]\nmode = \"declare\"\ntasks = [\"binary\"]\n", "mechanism[0].name", "does not fit regression data"},
		{"declare, privately tuned", "[mechanism.external]\ncommand = [\"x\"]\nmode = \"declare\"\n[mechanism.tuning]\nmode = \"private\"\nselect_on = \"test\"\nmean = 5\ncandidates = { c = [1, 2] }\n", "mechanism[0].tuning.mode", `use mode = "calibrate"`},
		{"negative timeout", "[mechanism.external]\ncommand = [\"x\"]\nmode = \"declare\"\ntimeout = -1\n", "mechanism[0].external.timeout", "≥ 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseFile(externalSpec(t, t.TempDir(), tc.block))
			var se *spec.SpecError
			if !errors.As(err, &se) || se.Key != tc.key || se.Line == 0 || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v (key %q), want one at %s containing %q", err, keyOf(se), tc.key, tc.want)
			}
		})
	}
	// A table on another mechanism.
	src := strings.Replace(validSpec, `label = "AdaSSP"`, `label = "AdaSSP"`+"\nexternal = { command = [\"x\"], mode = \"declare\" }", 1)
	if _, err := Parse("t.toml", []byte(src)); err == nil || !strings.Contains(err.Error(), "mechanism[0].external") {
		t.Errorf("an external table on adassp: %v", err)
	}
}

func keyOf(e *spec.SpecError) string {
	if e == nil {
		return ""
	}
	return e.Key
}
