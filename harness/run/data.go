package run

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/harness/plan"
	"github.com/dplab/dplab/harness/spec"
	"github.com/dplab/dplab/internal/oncemap"
	"github.com/dplab/dplab/internal/rngs"
	"gonum.org/v1/gonum/mat"
)

// DataCache loads each dataset once per process and keeps fixed splits, so
// every trial shares the same read-only matrices. Before loading a dataset it
// verifies the registered files present in the data directory against their
// SHA-256s (datasets.Entry.VerifyFiles), through a datasets.VerifyCache kept
// in datasets.DefaultVerifyCachePath(), so an unchanged file is hashed once,
// not at every run, and reads a file-backed dataset's parsed form from a
// datasets.ParseCache in datasets.DefaultParseCacheDir() (keyed by those
// checksums), so a later process does not parse the files again. It is
// safe for concurrent use; the zero value is ready.
type DataCache struct {
	m oncemap.Map[string, any]

	verifyOnce sync.Once
	verifier   *datasets.VerifyCache

	parseOnce sync.Once
	parser    *datasets.ParseCache

	// resident holds the keys of the datasets loaded and not forgotten;
	// peak is its largest size (what a run that loads one dataset at a
	// time keeps at one).
	mu       sync.Mutex
	resident map[string]bool
	peak     int
}

// defaultCache is the process's data cache.
var defaultCache = &DataCache{}

func (c *DataCache) get(key string, compute func() (any, error)) (any, error) {
	return c.m.Do(key, compute)
}

// verifyCache returns the cache of verified files, created on first use.
func (c *DataCache) verifyCache() *datasets.VerifyCache {
	c.verifyOnce.Do(func() { c.verifier = datasets.NewVerifyCache(datasets.DefaultVerifyCachePath()) })
	return c.verifier
}

// parseCache returns the cache of parsed datasets, created on first use.
func (c *DataCache) parseCache() *datasets.ParseCache {
	c.parseOnce.Do(func() { c.parser = datasets.NewParseCache(datasets.DefaultParseCacheDir()) })
	return c.parser
}

// verified verifies the registered files of the dataset called name present
// in dir, once per process, and returns them. A user file (features-csv) has
// no registered files and nothing to verify.
func (c *DataCache) verified(dir, name string) ([]datasets.VerifiedFile, error) {
	v, err := c.get("verify|"+dir+"|"+name, func() (any, error) {
		e, err := datasets.Lookup(name)
		if err != nil {
			return nil, err
		}
		return e.VerifyFiles(dir, c.verifyCache())
	})
	if err != nil {
		return nil, err
	}
	return v.([]datasets.VerifiedFile), nil
}

// load returns the dataset's loaded (preprocessed, unsplit) data, after
// verifying its files: a file whose checksum does not match is an error.
// The data comes from the parse cache when it holds these files' parse.
func (c *DataCache) load(dir string, d spec.DatasetSpec) (*datasets.Loaded, error) {
	key := loadKey(dir, d)
	v, err := c.get(key, func() (any, error) {
		e, err := datasets.Lookup(d.Name)
		if err != nil {
			return nil, err
		}
		files, err := c.verified(dir, d.Name)
		if err != nil {
			return nil, err
		}
		l, err := e.LoadVerified(dir, files, func(v any) error {
			_, err := spec.DecodeStrict(d.Params, v)
			return err
		}, c.parseCache())
		if err == nil {
			c.mu.Lock()
			if c.resident == nil {
				c.resident = map[string]bool{}
			}
			c.resident[key] = true
			c.peak = max(c.peak, len(c.resident))
			c.mu.Unlock()
		}
		return l, err
	})
	if err != nil {
		return nil, err
	}
	return v.(*datasets.Loaded), nil
}

// loadKey and splitKey are the cache's keys of a dataset's loaded data and
// of its fixed split under a spec's seed.
func loadKey(dir string, d spec.DatasetSpec) string {
	b, _ := json.Marshal(d.Params) // map keys sorted
	return "load|" + dir + "|" + d.Name + "|" + string(b)
}

func splitKey(dir string, seed int64, d spec.DatasetSpec) string {
	return "split|" + dir + "|" + strconv.FormatInt(seed, 10) + "|" + plan.DatasetKey(d)
}

// forget drops dataset d's loaded data and fixed split (under seed) from
// the cache: the next load reads it again.
func (c *DataCache) forget(dir string, seed int64, d spec.DatasetSpec) {
	key := loadKey(dir, d)
	c.m.Delete(key)
	c.m.Delete(splitKey(dir, seed, d))
	c.mu.Lock()
	delete(c.resident, key)
	c.mu.Unlock()
}

// dropLoaded drops the loaded data under key from the cache, leaving the
// splits made of it; the dataset stays resident.
func (c *DataCache) dropLoaded(key string) {
	c.m.Delete(key)
}

// split is a trial's data: scaled train, optional validation, and test parts.
type split struct {
	train, val, test *datasets.Dataset
	// shared is set on a fixed split, whose parts every trial reads: what
	// is computed once per part (a linear model's error statistics,
	// linearStats) is then worth computing.
	shared bool
}

// prepare returns the split of dataset i of the spec for a trial. A fixed
// split (the default) is made once, from a seed derived from the spec seed
// and the dataset, and shared; a resampled split uses the trial's "split"
// stream. What does not depend on the trial is looked up once per run
// (datasetMemo), not once per trial.
func (r *runner) prepare(ctx context.Context, i int, rs rngs.Streams) (*split, error) {
	m := r.ready(ctx, i)
	if m.err != nil {
		return nil, m.err
	}
	if r.spec.Datasets[i].Split.Resample {
		return splitAndScale(m.loaded, r.spec.Datasets[i], rs.Get("split"))
	}
	return m.fixed, nil
}

// ready loads dataset i once per run, when the gate lets it, and makes its
// fixed split, or records why it could not.
func (r *runner) ready(ctx context.Context, i int) *datasetMemo {
	m := &r.datasets[i]
	m.once.Do(func() {
		if m.err = r.gate.acquire(ctx, i); m.err != nil {
			return
		}
		if m.loaded, m.fixed, m.err = r.prepareOnce(i); m.err != nil {
			r.gate.vacate(i) // nothing loaded to release
		}
	})
	return m
}

// datasetMemo is one dataset's data for the run: its fixed split, or, split
// afresh in every trial, its loaded data.
type datasetMemo struct {
	once   sync.Once
	loaded *datasets.Loaded
	fixed  *split
	err    error
}

// prepareOnce loads dataset i of the spec through the cache and, for a fixed
// split, makes (or finds in the cache) its split, then releases the loaded
// data if no other dataset of the run needs it (releaseLoaded).
func (r *runner) prepareOnce(i int) (*datasets.Loaded, *split, error) {
	d := r.spec.Datasets[i]
	loaded, err := r.cache.load(r.dataDir, d)
	if err != nil || d.Split.Resample {
		return loaded, nil, err
	}
	v, err := r.cache.get(splitKey(r.dataDir, r.spec.Seed, d), func() (any, error) {
		sp, err := splitAndScale(loaded, d, rngs.Derive("dplab/fixed-split", strconv.FormatInt(r.spec.Seed, 10), plan.DatasetKey(d)).Rand())
		if sp != nil {
			sp.shared = true
		}
		return sp, err
	})
	if err != nil {
		return nil, nil, err
	}
	r.releaseLoaded(i)
	return nil, v.(*split), nil
}

// releaseLoaded counts dataset i's fixed split made and, once every dataset
// of the run loaded as it is (the same name and params) has its fixed split
// and none is split afresh in every trial, drops their loaded data from the
// cache: the splits are copies, so the loaded rows would otherwise be held
// beside them for the whole run (objpert_fig2 held Adult's and
// Synthetic-H's twice, 70 MB). A later run in the process that needs
// another split of it loads it again.
func (r *runner) releaseLoaded(i int) {
	key := loadKey(r.dataDir, r.spec.Datasets[i])
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.unsplit == nil {
		r.unsplit = map[string]int{}
		for _, d := range r.spec.Datasets {
			n := 1
			if d.Split.Resample {
				n = len(r.spec.Datasets) + 1 // never released
			}
			r.unsplit[loadKey(r.dataDir, d)] += n
		}
	}
	if r.unsplit[key]--; r.unsplit[key] <= 0 {
		r.cache.dropLoaded(key)
	}
}

// splitAndScale splits loaded per d.Split (random fractions of All, or the
// source's fixed split with a validation fraction carved from its training
// part) and applies d.Scale with training statistics. It returns copies.
func splitAndScale(l *datasets.Loaded, d spec.DatasetSpec, r *rand.Rand) (*split, error) {
	var sp split
	switch {
	case d.Split.Indices != "":
		// The user's assignment (split.indices), re-read and checked
		// against the hash the spec was validated (and keyed) with.
		si, err := datasets.ReadSplitIndices(d.Split.Indices)
		if err != nil {
			return nil, fmt.Errorf("dataset %q: split.indices: %w", d.Label, err)
		}
		if si.SHA256 != d.Split.IndicesSHA256 {
			return nil, fmt.Errorf("dataset %q: split.indices: %s changed since the spec was loaded (SHA-256 %.12s, was %.12s)", d.Label, si.Path, si.SHA256, d.Split.IndicesSHA256)
		}
		rows := l.All
		if rows == nil {
			if rows, err = allRows(l); err != nil {
				return nil, fmt.Errorf("dataset %q: %w", d.Label, err)
			}
		}
		if sp.train, sp.test, err = si.Apply(rows); err != nil {
			return nil, fmt.Errorf("dataset %q: split.indices: %w", d.Label, err)
		}
	case d.Split.All:
		// Every row trains, in stored order; no test or validation part.
		var err error
		if sp.train, err = allRows(l); err != nil {
			return nil, fmt.Errorf("dataset %q: %w", d.Label, err)
		}
	case l.All != nil:
		if err := datasets.CheckSplit(l.All.Rows(), d.Split.Test, d.Split.Validation); err != nil {
			return nil, fmt.Errorf("dataset %q: %w", d.Label, err)
		}
		if d.Split.Ordered {
			sp.train, sp.val, sp.test = datasets.SplitOrdered(l.All, d.Split.Test, d.Split.Validation)
		} else {
			sp.train, sp.val, sp.test = datasets.Split(l.All, d.Split.Test, d.Split.Validation, r)
		}
	case l.Train != nil && l.Test != nil:
		sp.train, sp.test = l.Train.Clone(), l.Test.Clone()
		if d.Split.Validation > 0 {
			if err := datasets.CheckSplit(sp.train.Rows(), d.Split.Validation, 0); err != nil {
				return nil, fmt.Errorf("dataset %q: validation split of the source's training part: %w", d.Label, err)
			}
			if d.Split.Ordered {
				sp.train, _, sp.val = datasets.SplitOrdered(sp.train, d.Split.Validation, 0)
			} else {
				sp.train, _, sp.val = datasets.Split(sp.train, d.Split.Validation, 0, r)
			}
		}
	default:
		return nil, fmt.Errorf("dataset %q: the loader returned no data", d.Label)
	}
	var others []*datasets.Dataset
	if sp.test != nil {
		others = append(others, sp.test)
	}
	if sp.val != nil {
		others = append(others, sp.val)
	}
	if err := plan.Scaling(&d).Apply(sp.train, others...); err != nil {
		return nil, fmt.Errorf("dataset %q: %w", d.Label, err)
	}
	return &sp, nil
}

// allRows returns a copy of every row of l in stored order: All, or a fixed
// split's training rows followed by its test rows.
func allRows(l *datasets.Loaded) (*datasets.Dataset, error) {
	switch {
	case l.All != nil:
		return l.All.Clone(), nil
	case l.Train != nil && l.Test != nil:
		if l.Train.Cols() != l.Test.Cols() {
			return nil, fmt.Errorf("the source's training part has %d columns, its test part %d", l.Train.Cols(), l.Test.Cols())
		}
		all := l.Train.Clone()
		var x mat.Dense
		x.Stack(l.Train.X, l.Test.X)
		all.X = &x
		all.Y = append(all.Y, l.Test.Y...)
		return all, nil
	}
	return nil, fmt.Errorf("the loader returned no data")
}
