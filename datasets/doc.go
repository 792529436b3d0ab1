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
// remembering matches in a VerifyCache so unchanged files are hashed once. A
// file registered without a known checksum (File.Unverified: higgs) is hashed
// but reported as not checksum-verified (*UnverifiedError,
// VerifiedFile.Unverified), never as a match.
//
// # Invariants
//
//   - A loader's output is a pure function of the raw files' content and its
//     params; a generator's output is a pure function of its params (its
//     random stream is derived from the registry name and the seed param).
//   - Binary labels are exactly 0 or 1; every value of X and Y is finite.
//   - Loaders return fresh datasets; Split, Subset and Clone copy rows; only
//     Scaling.Apply modifies its arguments, in place.
//   - Scaling statistics come from the training part only.
//   - Bad input (a malformed file, an absent file, bad params) is an error
//     naming the file, line, column or key: *FileError, *MissingError, or a
//     wrapped params error. Only broken internal contracts panic.
//
// # References
//
// Citation keys are listed once, with their full entries, in
// docs/references.md. Software read for its algorithm: scikit-learn's
// make_classification (Synthetic-L/H) and treforevans/uci_datasets (the
// uci_datasets family and its test masks). The data files, their sources and
// checksums: ../shared/datasets/MANIFEST.md and docs/datasets.md.
package datasets
