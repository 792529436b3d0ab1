package plan

import (
	"fmt"
	"github.com/dplab/dplab/harness/spec"

	"github.com/dplab/dplab/datasets"
)

// checkData returns an upper bound on the shape of dataset i's data as
// loading it from the data directory dir would give it
// (datasets.Entry.Shape), without loading it, or a *SpecError naming the
// dataset when its values take more bytes than the limit the spec was
// loaded with (Limits.MaxDataBytes). Validation checks it (with the
// default data directory), and the runner again before loading anything.
func (s *checker) checkData(i int, dir string) (datasets.Shape, error) {
	d := s.Datasets[i]
	key := "params"
	if len(d.Params) == 0 {
		key = "name"
	}
	e, err := datasets.Lookup(d.Name)
	if err != nil {
		return datasets.Shape{}, s.ErrIn("dataset", i, "name", "%v", err)
	}
	sh, err := e.Shape(dir, func(v any) error { _, err := spec.DecodeStrict(d.Params, v); return err })
	if err != nil {
		return sh, s.ErrIn("dataset", i, key, "%v", err)
	}
	if err := DataTooLarge(d.Label, sh, limDataBytes(s.Options().Limits)); err != nil {
		return sh, s.ErrIn("dataset", i, key, "%v", err)
	}
	return sh, nil
}

// DataTooLarge returns an error naming the dataset (label) when its data
// (sh) take more than limit bytes.
func DataTooLarge(label string, sh datasets.Shape, limit int64) error {
	if sh.Bytes() <= limit {
		return nil
	}
	return fmt.Errorf("dataset %q holds %v: %d bytes (%s) as float64 values with its labels, above the limit of %d bytes (%s) per dataset: make it smaller, or raise the limit with --max-data-bytes",
		label, sh, sh.Bytes(), ByteText(sh.Bytes()), limit, ByteText(limit))
}

// ByteText writes a byte count in round decimal units: "808 MB".
func ByteText(n int64) string {
	units := []string{"bytes", "kB", "MB", "GB", "TB", "PB", "EB"}
	x, u := float64(n), 0
	for x >= 1000 && u < len(units)-1 {
		x, u = x/1000, u+1
	}
	if u == 0 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%.3g %s", x, units[u])
}
