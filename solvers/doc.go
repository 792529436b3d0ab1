// Package solvers holds the numerical kernels of dplab's learners: least
// squares, the logistic GLM loss and objective, minimisation to a
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
// Hessian. NewLogistic builds the summed logistic loss Σᵢ log(1+e^{x̃ᵢᵀθ}) −
// yᵢx̃ᵢᵀθ with labels in {0, 1}, optional bias (x̃ = [x; 1], intercept last)
// and optional per-example gradient clipping ([RKW23] §4). Objective adds
// (λ/2)‖θ‖² + bᵀθ: objective perturbation's perturbed objective.
//
//	loss, err := solvers.NewLogistic(X, y, solvers.LogisticConfig{Bias: true})
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
//
// # DP-SGD
//
// DPSGD trains logistic regression by DP-SGD as [RKW23]'s baseline does
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
//     on [RKW23]'s sum scale.
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
//   - A Logistic is immutable after NewLogistic and safe for concurrent use
//     (one loss can serve parallel runs on the same data).
//
// # References
//
//	[Abadi16] M. Abadi, A. Chu, I. Goodfellow, H. B. McMahan, I. Mironov,
//	         K. Talwar, L. Zhang. Deep Learning with Differential Privacy.
//	         arXiv:1607.00133v2 (CCS 2016), Algorithm 1.
//	[HAB17]  J. H. Huggins, R. P. Adams, T. Broderick. PASS-GLM: Polynomial
//	         Approximate Sufficient Statistics for Scalable Bayesian GLM
//	         Inference. NeurIPS 2017 (arXiv:1709.09216); read through [LSS25].
//	[KB15]   D. P. Kingma, J. Ba. Adam: A Method for Stochastic Optimization.
//	         arXiv:1412.6980v9 (ICLR 2015), Algorithm 1.
//	[Knuth2] D. E. Knuth. The Art of Computer Programming, Vol. 2, 3rd ed.,
//	         1997, §3.4.2 (random sampling and shuffling).
//	[LSS25]  O. Lev, V. Srinivasan, M. Shenfeld, K. Ligett, A. Sekhari, A. C.
//	         Wilson. The Gaussian Mixing Mechanism: Rényi Differential Privacy
//	         via Gaussian Sketches. arXiv:2505.24603 (shared/papers/003_*.txt,
//	         whose arXiv version is not recorded; shared/research/gaussmix.md).
//	[MTZ19]  I. Mironov, K. Talwar, L. Zhang. Rényi Differential Privacy of
//	         the Sampled Gaussian Mechanism. arXiv:1908.10530 (Poisson
//	         sampling as the accountant assumes it); version not pinned.
//	[NR]     W. H. Press, S. A. Teukolsky, W. T. Vetterling, B. P. Flannery.
//	         Numerical Recipes in C, 2nd ed., 1992: §5.8 (chebft), §5.10
//	         (chebpc, pcshft).
//	[NW06]   J. Nocedal, S. J. Wright. Numerical Optimization, 2nd ed.,
//	         Springer 2006: L-BFGS §7.2, line-search Newton §3.3–3.4.
//	[RKW23]  R. Redberg, A. Koskela, Y.-X. Wang. Improving the Privacy and
//	         Practicality of Objective Perturbation for Differentially Private
//	         Linear Learners. arXiv:2401.00583v1 (shared/papers/001_*.txt;
//	         formulas and errata in shared/research/objpert.md).
//	[SCS20]  S. Song, T. Steinke, O. Thakkar, A. Thakurta. Evading the Curse of
//	         Dimensionality in Unconstrained Private GLMs. arXiv:2006.06783
//	         (AISTATS 2021), Lemma 5.1 — read through [RKW23] App. F.2, Thm F.2;
//	         version not pinned.
//	[Wang18] Y.-X. Wang. Revisiting Differentially Private Linear Regression:
//	         Optimal and Adaptive Prediction & Estimation in Unbounded Domain.
//	         arXiv:1803.02596 (UAI 2018), Alg. 2 — read through [LSS25] App. H.1
//	         and shared/research/gaussmix.md §4.4; version not pinned.
package solvers
