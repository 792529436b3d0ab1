package datasets

//go:generate env DPLAB_UPDATE_PARAMDOCS=1 go test -run TestDatasetsDocGenerated .

import (
	"encoding/json"
	"fmt"

	"github.com/dplab/dplab/internal/registry"
)

// Info describes a registered dataset.
type Info struct {
	Name        string   // registry name, lowercase-hyphen ("adult", "synthetic-linear")
	Title       string   // human title ("UCI Adult (Census Income)")
	Description string   // what the loader does: source files, preprocessing, quirks
	Task        Task     // Regression or Binary
	Papers      []string // the papers and figures that use it ("RKW23 Fig. 2")
	Files       []File   // raw files in the data directory; none for a generator
	Synthetic   bool     // generated from a seed, no files
	UserFile    bool     // reads a file the user names in its params, no registered files
	License     string   // the data's license as far as known
	Source      string   // where the data was first published (URL or citation)
	Rows, Cols  int      // n × d after the loader's preprocessing with default params (all rows); 0 when unknown
	// DataDependent lists the loader's preprocessing that reads the data
	// itself (statistics over all rows or over the training rows, the
	// categories present, rows dropped by comparing rows), one phrase each.
	// Like the papers, dplab does not account for it: the runner copies each
	// phrase into every trial's privacy assumptions, and figures and tables
	// repeat them in their captions. Empty for data-independent loading.
	DataDependent []string
}

// File is one raw file of a dataset.
type File struct {
	// Path is relative to the data directory, with '/' separators and without
	// a compression suffix ("adult/adult.data"); the file may be stored as
	// Path, Path.gz or Path.bz2.
	Path string
	// URLs are canonical download locations, tried in order. The downloaded
	// bytes may be plain, gzip or bzip2.
	URLs []string
	// SHA256 is the hex SHA-256 of the decompressed content ("" when unknown).
	SHA256 string
	// StoredSHA256 is the hex SHA-256 of the file as published compressed at
	// the URLs (""), for files whose decompressed hash is not known.
	StoredSHA256 string
	// Unverified marks a file whose checksum is not known to the project
	// (never available to it, so nothing could be hashed): SHA256 and
	// StoredSHA256 are both "". A present copy is read and hashed but cannot
	// be compared with the published file: Verify returns an
	// *UnverifiedError, VerifyFiles returns it with VerifiedFile.Unverified
	// set, and Fetch keeps any download that decompresses. Every other file
	// must have a checksum (TestListIsSortedAndWellFormed).
	Unverified bool
	// Optional files (documentation, licence notes) are fetched and verified
	// but not needed to load.
	Optional bool
}

// Params is a dataset's typed parameter struct, decoded from a spec's params
// table. The zero value means the documented defaults.
type Params interface{ Validate() error }

// NoParams is the params struct of a dataset without parameters.
type NoParams struct{}

// Validate implements Params.
func (NoParams) Validate() error { return nil }

// Loaded is what a loader returns.
type Loaded struct {
	All         *Dataset // every row, when the source has no fixed split
	Train, Test *Dataset // a split fixed by the source (official files, masks); nil otherwise
}

// Entry is a registered dataset.
type Entry struct {
	Info  Info
	load  func(dir string, decode func(v any) error) (*Loaded, error)
	test  func(dir string) (*Loaded, error)
	check func(decode func(v any) error) error
	// shape is Shape; testShape the shape of the test params' data.
	shape     func(dir string, decode func(v any) error) (Shape, error)
	testShape func(dir string) (Shape, error)
	// cached is LoadVerified for a cache that is enabled.
	cached func(dir string, decode func(v any) error, files []VerifiedFile, c *ParseCache) (*Loaded, error)
}

var entries = registry.New[Entry]("dataset")

// Register adds a dataset. load reads (or generates) it from the data
// directory dir with validated params; test is a tiny fast parameter set for
// conformance tests. A duplicate or malformed name panics: registration
// happens in init and a clash is a programming error.
func Register[P Params](info Info, load func(dir string, p P) (*Loaded, error), test P) {
	if (info.Synthetic || info.UserFile) != (len(info.Files) == 0) || info.Synthetic && info.UserFile {
		panic("datasets: " + info.Name + ": exactly one of Synthetic and UserFile must be set when there are no files")
	}
	name := info.Name
	run := func(dir string, p P) (*Loaded, error) {
		if err := p.Validate(); err != nil {
			return nil, fmt.Errorf("dataset %s: params: %w", name, err)
		}
		l, err := load(dir, p)
		if err != nil {
			return nil, err
		}
		l.setName(name)
		return l, nil
	}
	// params decodes and validates the spec's params, as Load does.
	params := func(decode func(v any) error) (P, error) {
		var p P
		if decode != nil {
			if err := decode(&p); err != nil {
				return p, fmt.Errorf("dataset %s: params: %w", name, err)
			}
		}
		if err := p.Validate(); err != nil {
			return p, fmt.Errorf("dataset %s: params: %w", name, err)
		}
		return p, nil
	}
	entries.Add(name, Entry{
		Info: info,
		load: func(dir string, decode func(v any) error) (*Loaded, error) {
			var p P
			if decode != nil {
				if err := decode(&p); err != nil {
					return nil, fmt.Errorf("dataset %s: params: %w", name, err)
				}
			}
			return run(dir, p)
		},
		test: func(dir string) (*Loaded, error) { return run(dir, test) },
		check: func(decode func(v any) error) error {
			_, err := params(decode)
			return err
		},
		shape: func(dir string, decode func(v any) error) (Shape, error) {
			p, err := params(decode)
			if err != nil {
				return Shape{}, err
			}
			return shapeOf(info, dir, p)
		},
		testShape: func(dir string) (Shape, error) { return shapeOf(info, dir, test) },
		cached: func(dir string, decode func(v any) error, files []VerifiedFile, c *ParseCache) (*Loaded, error) {
			p, err := params(decode)
			if err != nil {
				return nil, err
			}
			// Only registered files are verified: a generator's or a user
			// file's output is not keyed by them.
			key, kerr := json.Marshal(p)
			if len(info.Files) == 0 || kerr != nil {
				return run(dir, p)
			}
			return c.load(name, key, files, func() (*Loaded, error) { return run(dir, p) })
		},
	})
}

func (l *Loaded) setName(name string) {
	for _, d := range []*Dataset{l.All, l.Train, l.Test} {
		if d != nil {
			d.Name = name
		}
	}
}

// Lookup returns the dataset called name; an unknown name is an error that
// lists the known names.
func Lookup(name string) (Entry, error) { return entries.Lookup(name) }

// List returns every registered dataset's Info, sorted by name.
func List() []Info {
	var out []Info
	for _, e := range entries.All() {
		out = append(out, e.Info)
	}
	return out
}

// Load reads the dataset from the data directory dir. decode strictly fills
// the registered params struct (a pointer to it is passed) from the spec; nil
// decode means the zero value, i.e. the defaults. The params' Validate is
// called before loading. Absent files give a *MissingError, unreadable ones
// a *FileError.
func (e Entry) Load(dir string, decode func(v any) error) (*Loaded, error) {
	return e.load(dir, decode)
}

// CheckParams decodes and validates the spec's params (as Load does) without
// loading anything.
func (e Entry) CheckParams(decode func(v any) error) error { return e.check(decode) }

// LoadTest loads the dataset with its registered tiny test params.
func (e Entry) LoadTest(dir string) (*Loaded, error) { return e.test(dir) }

// Missing returns the registered files needed with default params that are
// absent from dir (empty for a generator).
func (e Entry) Missing(dir string) []string {
	var miss []string
	for _, f := range e.Info.Files {
		if f.Optional {
			continue
		}
		if _, ok := locate(dir, f.Path); !ok {
			miss = append(miss, f.Path)
		}
	}
	return miss
}
