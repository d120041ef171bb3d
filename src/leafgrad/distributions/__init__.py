"""torch.distributions: probability distributions on leafgrad tensors.

PyTorch's algorithms (torch/distributions, 2.13) written on leafgrad ops, so that
log_prob / entropy / rsample differentiate, and draws go through leafgrad's
normal_ / rand / bernoulli / multinomial / exponential_ / uniform_, which give
PyTorch's random streams under ``manual_seed``.

Families: Normal, Uniform, Exponential, Laplace, Cauchy, Bernoulli, Geometric,
Poisson, Gamma, Chi2, Beta, Dirichlet, StudentT, Binomial, Categorical, OneHotCategorical (+ StraightThrough), Multinomial,
MultivariateNormal, Independent, TransformedDistribution (LogNormal, HalfNormal,
HalfCauchy, Gumbel, Weibull, Pareto, Kumaraswamy) and ``transforms``;
``kl_divergence`` / ``register_kl`` for the pairs PyTorch registers among them.
"""
from . import constraints
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .chi2 import Chi2
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .gamma import Gamma
from .geometric import Geometric
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .multinomial import Multinomial
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from .poisson import Poisson
from .studentT import StudentT
from .uniform import Uniform
from . import transforms
from .constraint_registry import biject_to, transform_to
from .transformed_distribution import TransformedDistribution
from .transforms import *  # noqa: F401,F403
from .gumbel import Gumbel
from .half_cauchy import HalfCauchy
from .half_normal import HalfNormal
from .kumaraswamy import Kumaraswamy
from .log_normal import LogNormal
from .pareto import Pareto
from .weibull import Weibull
from .continuous_bernoulli import ContinuousBernoulli
from .fishersnedecor import FisherSnedecor
from .generalized_pareto import GeneralizedPareto
from .inverse_gamma import InverseGamma
from .logistic_normal import LogisticNormal
from .mixture_same_family import MixtureSameFamily
from .negative_binomial import NegativeBinomial
from .relaxed_bernoulli import RelaxedBernoulli
from .relaxed_categorical import RelaxedOneHotCategorical
from .lowrank_multivariate_normal import LowRankMultivariateNormal
from .von_mises import VonMises
from .lkj_cholesky import LKJCholesky
from .wishart import Wishart
from . import _kl_gamma_transformed, _kl_lowrank_bernoulli  # noqa: F401  (register their KL pairs)

__all__ = [
    "Bernoulli", "Beta", "Binomial", "Categorical", "Cauchy", "Chi2", "Dirichlet", "Distribution", "Exponential", "ExponentialFamily",
    "Gamma", "Geometric", "Independent", "Laplace", "Multinomial", "MultivariateNormal", "Normal",
    "Gumbel", "HalfCauchy", "HalfNormal", "Kumaraswamy", "LogNormal", "Pareto",
    "TransformedDistribution", "Weibull", "ContinuousBernoulli", "FisherSnedecor",
    "GeneralizedPareto", "InverseGamma", "LogisticNormal", "MixtureSameFamily",
    "NegativeBinomial", "RelaxedBernoulli", "RelaxedOneHotCategorical",
    "LowRankMultivariateNormal", "VonMises", "LKJCholesky", "Wishart",
    "OneHotCategorical", "OneHotCategoricalStraightThrough", "Poisson", "StudentT", "Uniform", "constraints", "kl_divergence", "register_kl", "biject_to", "transform_to",
] + transforms.__all__
