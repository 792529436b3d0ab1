package report

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/dplab/dplab/experiments/internal/spectest"
	"github.com/dplab/dplab/experiments/spec"
	"github.com/dplab/dplab/plotting"
)

// TestOutputErrors: each figure and table kind decodes its block strictly;
// an error names the file, line and key, as the spec's own errors do.
func TestOutputErrors(t *testing.T) {
	curves := "\n[[curve]]\nname = \"gaussian-rdp\"\npanel = \"p\"\nx = \"alpha\"\nparams = { alpha = [2, 4], sigma = 1 }\n"
	tests := []struct {
		name string
		edit func(string) string
		line int
		key  string
		want string
	}{
		{"unknown metric", func(s string) string { return strings.Replace(s, `metric = "test_mse"`, `metric = "mse"`, 1) }, 23, "figure[0].metric", "unknown metric"},
		{"bad legend", func(s string) string {
			return strings.Replace(s, `metric = "test_mse"`, `metric = "test_mse"`+"\nlegend = \"middle\"", 1)
		}, 24, "figure[0].legend", "bottom-right"},
		{"unknown figure kind", func(s string) string {
			return strings.Replace(s, `metric = "test_mse"`, `metric = "test_mse"`+"\nkind = \"bars\"", 1)
		}, 24, "figure[0].kind", "want curves, epsilon"},
		{"unknown figure key", func(s string) string {
			return strings.Replace(s, `metric = "test_mse"`, `metric = "test_mse"`+"\nbnad = \"ci\"", 1)
		}, 24, "figure[0].bnad", "unknown key"},
		// issue 10: a curves figure used to accept (and ignore) the epsilon
		// kind's keys, and validation returned early for it.
		{"curves figure with time_ratio", func(s string) string {
			return strings.Replace(s+curves, "name = \"mse\"\nmetric = \"test_mse\"\n\n[[table]]", "name = \"mse\"\nkind = \"curves\"\ntime_ratio = [\"a\", \"a\"]\ncenter = \"median\"\n\n[[table]]", 1)
		}, 25, "figure[0].center", "unknown key"},
		{"privacy table with metric", func(s string) string {
			return strings.Replace(s, "[[table]]\nname = \"mse\"\nmetric = \"test_mse\"", "[[table]]\nname = \"mse\"\nkind = \"privacy\"\nmetric = \"test_mse\"", 1)
		}, 28, "table[0].metric", "unknown key"},
		{"table format", func(s string) string { return s + "formats = [\"xls\"]\n" }, 28, "table[0].formats", "want one of md"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := spec.Parse("spec.toml", []byte(tc.edit(spectest.Valid)))
			if err == nil {
				err = Check(s)
			}
			se, ok := err.(*spec.SpecError)
			if !ok {
				t.Fatalf("err = %v (%T), want *spec.SpecError", err, err)
			}
			if se.File != "spec.toml" || se.Line != tc.line || se.Key != tc.key || !strings.Contains(se.Error(), tc.want) {
				t.Errorf("got %q (line %d, key %q); want line %d, key %q, mentioning %q", se.Error(), se.Line, se.Key, tc.line, tc.key, tc.want)
			}
		})
	}
}

// scratchFigure is a throwaway figure kind, registered by this test file
// only (issue 10, Done when 2): a kind is one type with a strict params
// struct and the two methods of Figure. Leaving out draw is a compile error
// at the registration (`*scratchFigure does not implement Figure (missing
// method draw)`), never a runtime panic; an unknown key is a named error.
type scratchFigure struct {
	Metric string `toml:"metric"`
}

func (f *scratchFigure) draw(*view) *plotting.Figure { return &plotting.Figure{Name: "scratch"} }
func (f *scratchFigure) formats() []string           { return []string{"svg"} }

func TestScratchFigureKind(t *testing.T) {
	RegisterFigure("scratch", func(b *Block) (Figure, error) {
		var f scratchFigure
		if err := b.Decode(&f); err != nil {
			return nil, err
		}
		return &f, b.Spec.CheckMetric(b.Kind, b.Index, f.Metric)
	})
	defer delete(figureKinds, "scratch")
	src := strings.Replace(spectest.Valid, `metric = "test_mse"`, `metric = "test_mse"`+"\nkind = \"scratch\"", 1)
	if err := Check(spectest.MustParse(t, src)); err != nil {
		t.Fatalf("a valid scratch figure: %v", err)
	}
	bad := strings.Replace(src, `kind = "scratch"`, "kind = \"scratch\"\nband = \"ci\"", 1)
	err := Check(spectest.MustParse(t, bad))
	if se, ok := err.(*spec.SpecError); !ok || se.Key != "figure[0].band" || !strings.Contains(se.Error(), "unknown key") {
		t.Errorf("a key the scratch kind does not declare: %v", err)
	}
}

// parseChecked parses src and checks its figures and tables, as the CLI
// loads a spec.
func parseChecked(file, src string) (*spec.Spec, error) {
	s, err := spec.Parse(file, []byte(src))
	if err != nil {
		return nil, err
	}
	return s, Check(s)
}

// TestShippedSpecsOutputs: every spec in experiments/, and its quick
// variant, has figures and tables its kinds accept.
func TestShippedSpecsOutputs(t *testing.T) {
	paths, _ := filepath.Glob("../*.toml")
	if len(paths) == 0 {
		t.Fatal("no specs")
	}
	for _, p := range paths {
		s, err := Load(p, spec.LoadOptions{})
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if s.Quick == nil {
			continue
		}
		if err := s.ApplyQuick(); err != nil {
			t.Errorf("%s quick: %v", p, err)
			continue
		}
		if err := Check(s); err != nil {
			t.Errorf("%s quick: %v", p, err)
		}
	}
}
