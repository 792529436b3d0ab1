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
// remembering matches in a VerifyCache so unchanged files are hashed once.
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
//   - [IYE19] R. Iyengar, J. P. Near, D. Song, O. Thakkar, A. Thakurta, L. Wang,
//     "Towards Practical Differentially Private Convex Optimization", IEEE S&P 2019;
//     benchmark code sunblaze-ucb/dpml-benchmark (datasets/preprocess/adult.py,
//     gisette.py; common/datasets.py) — Adult, Gisette, Synthetic-L/H recipes.
//   - [RKW24] R. Redberg, A. Koskela, Y.-X. Wang, "Improving the Privacy and
//     Practicality of Objective Perturbation for Differentially Private Linear
//     Learners", arXiv:2401.00583v1 — uses Adult, Synthetic-L/H, Gisette (Fig. 2,
//     Tables 1–2).
//   - [LSS25] O. Lev, V. Srinivasan, M. Shenfeld, K. Ligett, A. Sekhari,
//     A. C. Wilson, "The Gaussian Mixing Mechanism: Rényi Differential Privacy via
//     Gaussian Sketches", arXiv:2505.24603 (NeurIPS 2025); code omrilev1/GaussMix
//     (utils_linear_mixing.py GetDataset/read_crimes) — regression sets and
//     generators (Figs. 2, 4), image tasks (Figs. 3, 5).
//   - [HMB24] H. Hendrikx, P. Mangold, A. Bellet, "The Relative Gaussian
//     Mechanism and its Application to Private Gradient Descent",
//     arXiv:2308.15250v2 — ijcnn1 (Figs. 1, 2).
//   - [HSS24] Y. Hu, A. Sanyal, B. Schölkopf, "Provable Privacy with Non-Private
//     Pre-Processing", arXiv:2403.13041v1 — approximately low-rank logistic data
//     (Fig. 3).
//   - [SKL] scikit-learn sklearn.datasets.make_classification (the algorithm
//     behind Synthetic-L/H), read for its steps, not copied.
//   - [UCIDS] treforevans/uci_datasets — the uci_datasets family and its test masks.
//   - The data files, their sources and checksums: ../shared/datasets/MANIFEST.md
//     and docs/datasets.md.
package datasets
