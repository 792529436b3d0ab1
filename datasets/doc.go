// Package datasets provides the data of dplab's reproductions: the Dataset
// type, a registry of datasets by name, loaders that preprocess each dataset
// exactly as the paper that used it did, seeded synthetic generators, the
// shared transforms (train/test/validation splits, row and target scaling,
// standardisation, one-hot encoding), readers for delimited text (CSV),
// LibSVM and IDX files stored plain, gzip- or bzip2-compressed, and fetching
// and checksum verification of the raw files.
//
// Raw files live in a data directory (DataDir: the --data-dir flag, else
// $DPLAB_DATA, else the user cache directory) under the relative paths the
// registry gives (File.Path); each may be stored plain, .gz or .bz2. The
// project never commits data files; `dplab datasets fetch` downloads them
// from the canonical sources and verifies their SHA-256, and
// Entry.VerifyFiles checks the present copies before a run loads them,
// remembering matches in a VerifyCache so unchanged files are hashed once;
// Entry.LoadVerified keeps what a file-backed loader returned in a
// ParseCache keyed by those checksums (loaderVersion, params, byte order),
// so a later process reads it back instead of parsing the files again. A
// file registered without a known checksum (File.Unverified: higgs) is hashed
// but reported as not checksum-verified (*UnverifiedError,
// VerifiedFile.Unverified), never as a match.
//
// # Invariants
//
//   - A loader's output is a pure function of the raw files' content and its
//     params (the ParseCache keys entries by nothing else: a change to what
//     any loader returns bumps loaderVersion); a generator's output is a pure
//     function of its params (its random stream is derived from the registry
//     name and the seed param).
//   - Binary labels are exactly 0 or 1; every value of X and Y is finite.
//   - Loaders return fresh datasets; Split, Subset and Clone copy rows; only
//     Scaling.Apply modifies its arguments, in place.
//   - Scaling statistics come from the training part only.
//   - Bad input (a malformed file, an absent file, bad params) is an error
//     naming the file, line, column or key: *FileError, *MissingError, or a
//     wrapped params error. Only broken internal contracts panic.
//
// # Adding a dataset
//
// Write one file, <registry_name>.go with hyphens as underscores, whose init
// calls Register(Info{…}, load, testParams): Name, Title, Description,
// Task, Papers, License, Source, Rows and Cols, DataDependent (every
// statistic the loader reads from the data, one phrase each), and either
// Files (path under the data directory, download URLs and the SHA-256 of the
// content, which dplab datasets fetch and verify and the runner use),
// Synthetic (a generator seeded from its params) or UserFile; a params
// struct with Validate (NoParams for none); and the loader, a pure function
// of the raw files and params returning fresh datasets, opening files
// through the package's helpers (readTable, openData) so that bad or absent
// files are a *FileError or a *MissingError. Params that change the shape
// from Rows × Cols implement shape(dir, info), which Entry.Shape returns
// before loading, for the size limit. Picked up through List:
// TestListIsSortedAndWellFormed, TestShapeBoundsLoadedData,
// TestSyntheticEntriesAreDeterministic (generators),
// TestLoadersNeverPanicOnJunk (file-backed loaders), TestDataDependentDeclared
// and, in the root package, TestDatasetsListShowsEveryDataset; go generate
// ./datasets adds its row to docs/datasets.md's generated table of every
// dataset (TestDatasetsDocGenerated). Not automatic: a file-backed dataset's
// entry in realChecks (realdata_test.go: shape, labels
// and one statistic computed independently, run by TestRealDatasets when
// DPLAB_DATA is set); its raw files in the shared data folder, which
// TestDatasetsVerifySharedFilesAreOK requires to be registered and to verify.
//
// # References
//
// Citation keys are listed once, with their full entries, in
// docs/references.md. Software read for its algorithm: scikit-learn's
// make_classification (Synthetic-L/H) and treforevans/uci_datasets (the
// uci_datasets family and its test masks). The data files, their sources and
// checksums: ../shared/datasets/MANIFEST.md and docs/datasets.md.
package datasets
