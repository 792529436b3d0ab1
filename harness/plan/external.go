package plan

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/dplab/dplab/harness/spec"
	"github.com/dplab/dplab/mechanisms"
	"github.com/dplab/dplab/mechanisms/external"
	"github.com/dplab/dplab/results"
)

// EntryOf returns the mechanism entry of a [[mechanism]] block: the
// registry's, or for a block named "external" the one its resolved
// [mechanism.external] table configures (package mechanisms/external).
func EntryOf(m spec.MechanismSpec) (mechanisms.Entry, error) {
	if m.Name != external.Name {
		return mechanisms.Lookup(m.Name)
	}
	if m.External == nil {
		return mechanisms.Entry{}, fmt.Errorf("mechanism %q needs a [mechanism.external] table with its command (docs/external.md)", external.Name)
	}
	return external.Entry(ExternalConfig(m.External)), nil
}

// ExternalConfig is the worker configuration of a resolved external table.
func ExternalConfig(x *spec.ExternalSpec) external.Config {
	argv := x.Argv
	if argv == nil {
		argv = x.Command
	}
	c := external.Config{Command: argv, Dir: x.Dir, Mode: x.Mode, Event: x.Event,
		Timeout: time.Duration(x.Timeout * float64(time.Second)), Output: x.Output}
	for _, name := range x.Tasks {
		if t, err := external.ParseTask(name); err == nil { // validateExternal reports the others
			c.Tasks = append(c.Tasks, t)
		}
	}
	return c
}

// resolveExternal returns the external table x of a spec read from
// specFile, resolved: the spec's directory, the argv with every argument
// that names an existing file (relative to that directory, or absolute)
// made absolute, the SHA-256 of those files and of Files. An entry of
// Files that cannot be read is listed in Missing (validation reports it).
func resolveExternal(x spec.ExternalSpec, specFile string) *spec.ExternalSpec {
	dir, _ := filepath.Abs(filepath.Dir(specFile))
	abs := func(p string) string {
		p = filepath.FromSlash(p)
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		return p
	}
	sums := map[string]string{}
	var argv, missing []string
	for i, a := range x.Command {
		// The program itself is looked up on PATH unless it names a path.
		if a != "" && (i > 0 || strings.ContainsRune(a, '/')) {
			if st, err := os.Stat(abs(a)); err == nil && st.Mode().IsRegular() {
				if sum, err := external.FileSHA256(abs(a)); err == nil {
					sums[a] = sum
					a = abs(a)
				}
			}
		}
		argv = append(argv, a)
	}
	for _, f := range x.Files {
		sum, err := external.FileSHA256(abs(f))
		if err != nil {
			missing = append(missing, fmt.Sprintf("%s (%v)", f, err))
			continue
		}
		sums[f] = sum
	}
	x.Dir, x.Argv, x.SHA256, x.Missing, x.Resolved = dir, argv, sums, missing, true
	return &x
}

// recordedExternals gives each external table d resolves the hashes the
// load options record for its block's label (spec.LoadOptions.ExternalSHA256):
// those of the run that stored its trials, whose files need not lie beside
// the spec (a result directory's copy), so that its cells keep their keys.
func recordedExternals(s *spec.Spec, d spec.Defaults) {
	rec := s.Options().ExternalSHA256
	if rec == nil {
		return
	}
	r := s.Resolved(d)
	for i, x := range d.Externals {
		if sums, ok := rec[r.Mechanisms[i].Label]; ok && x != nil {
			y := *x
			y.SHA256 = map[string]string{} // as resolveExternal's, never nil
			maps.Copy(y.SHA256, sums)
			y.Missing = nil
			d.Externals[i] = &y
		}
	}
}

// validateExternal checks block i's external table against its name.
func (s *checker) validateExternal(i int) error {
	m := s.Mechanisms[i]
	x := m.External
	switch {
	case m.Name != external.Name && x != nil:
		return s.ErrIn("mechanism", i, "external", "an [mechanism.external] table configures a mechanism named %q, not %q", external.Name, m.Name)
	case m.Name != external.Name:
		return nil
	case x == nil:
		return s.ErrIn("mechanism", i, "name", "mechanism %q needs a [mechanism.external] table: command, mode (docs/external.md)", external.Name)
	case len(x.Missing) > 0:
		return s.ErrIn("mechanism", i, "external.files", "cannot read %s", strings.Join(x.Missing, "; "))
	case !(x.Timeout >= 0) || math.IsInf(x.Timeout, 0):
		return s.ErrIn("mechanism", i, "external.timeout", "timeout = %v: want seconds ≥ 0 (0 means %v)", x.Timeout, external.DefaultTimeout)
	}
	if x.Mode == external.ModeDeclare && m.Tuning.Mode == spec.TunePrivate {
		// Private tuning charges repeat-and-select of each candidate's
		// ledger (Budget.Wrap), which a declaring worker never sees: it
		// would choose its noise for the whole (ε, δ) and every trial
		// would spend more than its target.
		return s.ErrIn("mechanism", i, "tuning.mode", "private tuning of an external mechanism in mode %q: the worker chooses its noise "+
			"for the whole budget, but private tuning charges repeat-and-select of it; use mode = %q (dplab calibrates the noise for "+
			"the charged event) or tuning mode %q", external.ModeDeclare, external.ModeCalibrate, spec.TuneOracle)
	}
	for _, name := range x.Tasks {
		if _, err := external.ParseTask(name); err != nil {
			return s.ErrIn("mechanism", i, "external.tasks", "%v", err)
		}
	}
	if err := ExternalConfig(x).Check(); err != nil {
		key, msg, _ := strings.Cut(err.Error(), ": ")
		return s.ErrIn("mechanism", i, "external."+key, "%s", msg)
	}
	return s.validatePredictions(i)
}

// externalKey is what of block m's external table enters its cells' keys:
// the command as written, the mode, the event family, the output when it
// is "predictions" and the SHA-256 of every file the command and files
// name, so that editing the worker's script reruns its cells. Nil for a
// block without one (keys unchanged).
func externalKey(m spec.MechanismSpec) json.RawMessage {
	x := m.External
	if x == nil {
		return nil
	}
	b, _ := json.Marshal(struct {
		Command []string          `json:"command"`
		Mode    string            `json:"mode"`
		Event   string            `json:"event,omitempty"`
		SHA256  map[string]string `json:"sha256"`
		Output  string            `json:"output,omitempty"`
	}{x.Command, x.Mode, x.Event, x.SHA256, predictionsKey(x)})
	return b
}

// ExternalFiles returns, for the run's manifest, each external block's
// command (as written) and the SHA-256 of the files it names, by label.
func ExternalFiles(s *spec.Spec) map[string]results.ExternalCommand {
	out := map[string]results.ExternalCommand{}
	for _, m := range s.Mechanisms {
		if x := m.External; x != nil {
			out[m.Label] = results.ExternalCommand{Command: slices.Clone(x.Command), Mode: x.Mode, SHA256: x.SHA256}
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
