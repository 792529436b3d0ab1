// Package solvers holds the numerical kernels of dplab's learners: least
// squares, the GLM losses (logistic and squared) and objective, minimisation to a
// gradient-norm tolerance, the DP-SGD loop and the Chebyshev quadratic
// surrogate of the logistic loss. It works on plain *mat.Dense and []float64
// (never a datasets.Dataset); mechanisms build on it.
//
// # Least squares
//
//	Gram(X)                      XᵀX by a symmetric rank-k update
//	Ridge(X, y, λ)               (XᵀX + λI)⁻¹Xᵀy: Cholesky, SVD fallback; λ = 0 and
//	                             rank-deficient X: minimum-norm solution
//	SolveRegularized(A, b, λ)    (A + λI)⁻¹b for symmetric A, possibly indefinite
//	                             (AdaSSP's noisy Gram): Cholesky, else LU; singular: error
//	LambdaMin(A)                 smallest eigenvalue
//
// # Losses and objectives
//
// A Function evaluates value and gradient in one pass (ValueGrad) and its
// Hessian. NewGLM builds a summed GLM loss: the logistic loss Σᵢ
// log(1+e^{x̃ᵢᵀθ}) − yᵢx̃ᵢᵀθ with labels in {0, 1} (GLMConfig.Loss
// LossLogistic, the default) or the squared loss Σᵢ ½(x̃ᵢᵀθ − yᵢ)²
// (LossSquared), with optional bias (x̃ = [x; 1], intercept last) and
// optional per-example gradient clipping ([RKW23] §4; for the squared loss
// the clipped loss is the Huber loss). Objective adds (λ/2)‖θ‖² + bᵀθ:
// objective perturbation's perturbed objective.
//
//	loss, err := solvers.NewGLM(X, y, solvers.GLMConfig{Bias: true})
//	obj := solvers.Objective{Loss: loss, L2: lambda, Linear: b}
//	res, err := solvers.Minimize(obj, theta0, &solvers.Settings{GradTol: 0.01})
//
// # Minimisation
//
// Minimize runs gonum's L-BFGS until an evaluated point has ‖∇f‖₂ ≤ τ and
// falls back to Newton (or restarted L-BFGS in high dimension) on the same
// function if L-BFGS stops short. The returned point always satisfies the
// tolerance unless an error is returned. MinimizeContext also stops on a
// cancelled context. Settings.Method = MethodNewton runs Newton alone, which
// is competitive for d ≈ 100 when the Hessian is cheap (one-hot data).
// Settings.Metric (a factored H₀ ≈ ∇²f near the minimiser) runs every stage
// in the coordinates where H₀ is the identity, with the same stopping rule:
// objective perturbation's fits share H₀ from the noiseless fit. There, when
// f's rounding stops both L-BFGS runs' line searches near the minimiser,
// unit secant steps from gradients alone finish before a Hessian is paid
// for (a second of O(n·d²) + O(d³) work at d = 2,000).
//
// # DP-SGD
//
// DPSGD trains logistic regression (or, with DPSGDConfig.Loss = LossSquared,
// least squares) by DP-SGD as [RKW23]'s baseline does
// with Opacus: Poisson sampling at rate q = 1/ceil(n/B) (PoissonSampler:
// Binomial batch size, then distinct uniform indices), closed-form
// per-example gradients clipped to C, N(0, (σ_mult·C)²I) noise on the sum,
// division by the expected batch size, then Adam (PyTorch semantics) or
// SGD, from PyTorch's nn.Linear initialisation (LinearInit). With
// NoiseMultiplier = 0 and Clip = 0 the same loop is non-private minibatch
// training. DPSGDConfig.Schedule returns the (q, T) a mechanism must give
// its accountant; the loop uses exactly those.
//
//	cfg := solvers.DPSGDConfig{NoiseMultiplier: s, Clip: math.Sqrt2,
//		LearningRate: lr, Epochs: 60, ExpectedBatch: 256, Bias: true}
//	q, steps, err := cfg.Schedule(n) // event: SelfComposed(PoissonSampledGaussian{q, s}, steps)
//	res, err := solvers.DPSGD(ctx, X, y, cfg, streams)
//
// # Ridge nodes (distributed gradient descent)
//
// NewRidgeNode builds one node's ridge objective of [HMB23]'s distributed
// experiment, on the mean scale of its Eq. (9): f(θ) = (1/(2n))‖Xθ − y‖² +
// (μ/2)‖θ‖² = ½θᵀAθ − bᵀθ + c with A = XᵀX/n + μI and b = Xᵀy/n computed
// once, with A⁻¹ and the extreme eigenvalues. Grad and Value then cost
// O(d²); ClippedGrad is the mean of the per-sample gradients x_j r_j + μθ
// clipped to norm c, in one pass over the rows (BLAS dgemv for the
// residuals, the per-sample norms in closed form, ∇f plus a correction over
// the clipped rows only); SampleGradNorms gives their max and sum of squares
// (the clipping thresholds); MulRows applies a d × d matrix to every row in
// blocks (the sensitivity estimates).
//
//	node, err := solvers.NewRidgeNode(X, y, 0.03)
//	node.Grad(g, theta)                         // Aθ − b
//	clipped := node.ClippedGrad(g, theta, c, work)
//
// # Chebyshev surrogate of the logistic loss
//
// LogisticSurrogate(Q) returns the degree-2 Chebyshev interpolant
// q(s) = B0 + B1·s + B2·s² of log sigmoid(s) on [−Q, Q] in the monomial basis
// (not the Chebyshev basis, the authors' code bug). Quadratic.Response maps
// labels {0, 1} to the least-squares response −(B1/(2B2))·(2y − 1): ordinary
// least squares on it maximises the surrogate log-likelihood, so a private
// least-squares mechanism (LinearMixing) fits the surrogate logistic model.
// Chebyshev and ChebyshevMonomial are the general interpolation and basis
// change behind it.
//
// # Invariants
//
//   - Sums, not means: every loss is summed over examples, so λ, b and τ are
//     on [RKW23]'s sum scale. The exception is RidgeNode, a mean over the
//     node's rows as in [HMB23] Eq. (9).
//   - Minimize never changes the function it minimises (a caller's noise draw
//     is never redrawn), and Result.X with Converged has a full-gradient
//     Euclidean norm ≤ Settings.GradTol, recomputed at X.
//   - Bad data or parameters (NaN, infinities, labels outside {0, 1}, λ < 0)
//     return errors; shape mismatches between arguments are caller bugs and
//     panic with "solvers: shape mismatch".
//   - Randomness comes only from the *rand.Rand or rngs.Streams passed in
//     (DPSGD: streams "init", "sampling", "noise"); same streams, same bits.
//   - DPSGD's sampling rate and step count are those of Schedule, every
//     clipped per-example gradient has norm < Clip, and the noise std on
//     their sum is exactly NoiseMultiplier·Clip.
//   - A GLM is immutable after NewGLM and safe for concurrent use
//     (one loss can serve parallel runs on the same data).
//   - Faster kernels keep the bits. On amd64 with AVX, GLM.ValueGrad and
//     DPSGD's dense batches sum four rows at a time (dotRows4, axpyRows4;
//     ValueGrad's dense pass takes eight rows' dot products at once,
//     dotRows8, TestDotRows8MatchesGonum, on rows of dot8MinCols or more
//     columns, and so do DPSGD's dense batches, adding the eight rows by
//     axpyRows8, TestAxpyRows8MatchesGonum, TestDenseBatchGradRowByRow; shorter rows eight at a time from a packed copy read in
//     address order, packedRows8, TestPackedRows8MatchesGonum, or one by
//     one with floats.Dot)
//     and GramTo and GLM.Hessian update 4 × 8 blocks of the Gram matrix in
//     registers (syrkUpperAdd), as MulTransUpper does for the GaussMix
//     sketch's product G·R, each in the order of the gonum call it
//     replaces (floats.Dot, floats.AddScaled, dsyrk, dgemm), with every
//     product rounded before it is added; TestRowKernelsMatchGonum,
//     TestSyrkUpperAddMatchesDsyrk and TestMulTransUpperMatchesDgemm check
//     them bit for bit. On a sparse X (a quarter or fewer of its entries
//     non-zero, as Adult's one-hot columns) GLM.ValueGrad reads only the
//     non-zero entries, in the same lanes and order
//     (TestGLMSparseMatchesDense). Without AVX those gonum calls run. With AVX2 and FMA the logistic loss and its
//     derivative go four rows at a time through logisticRows4, which
//     repeats the operations of math.Exp (the runtime's exp_amd64.s on its
//     FMA path), of math.Log1p (math/log1p.go) and of logisticValueDeriv;
//     TestLogisticRows4MatchesScalar checks it bit for bit. With AVX-512
//     too, DPSGD's logistic derivatives go eight rows at a time through
//     logisticDerivsAVX512 (the same operations, TestLogisticDerivsKernel)
//     and their clipping and sum through clipSumAVX512 (clipSum's,
//     TestClipSumKernel). These kernels are left out
//     at the amd64 level v3 and above, where the compiler may fuse the
//     scalar code's multiply–adds. DPSGD prefetches the rows of a batch,
//     which changes no value. On a sparse X (half or fewer of its entries
//     non-zero) DPSGD reads sharedRows, which sum each row's own-valued
//     entries and then its shared value times the sum of w over the rest:
//     not the dense loops' bits, equal to rounding (TestDPSGDSparseRows,
//     TestSparseBatchGradNaive), and plain Go, so the same on any CPU. Under -tags noasm gonum and these kernels all
//     run in pure Go, which sums in another order: results differ in the
//     last bits, as they would with gonum alone.
//
// # References
//
// Citation keys are listed once, with their full entries, in
// docs/references.md.
package solvers
