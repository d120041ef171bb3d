"""Real torch.compile turns PyTorch's distribution validation off for the whole process
(``Distribution.set_default_validate_args(False)`` in torch/_dynamo): restore it after each
test here so the distribution tests that later run in the same worker see PyTorch's default."""
import pytest
import torch


@pytest.fixture(autouse=True)
def _keep_torch_distribution_validation():
    before = torch.distributions.Distribution._validate_args
    yield
    torch.distributions.Distribution.set_default_validate_args(before)
