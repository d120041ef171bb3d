"""torch.distributions under ``leafgrad run``: the import forms of RL / VAE code work and
print what real torch prints."""
import subprocess
import sys
import textwrap

from test_examples import ROOT, child_env, leafgrad_cmd

SCRIPT = textwrap.dedent("""
    import torch
    import torch.distributions as D
    from torch.distributions.categorical import Categorical
    from torch.distributions.normal import Normal
    from torch.distributions import kl_divergence, constraints
    from torch.distributions.kl import register_kl
    torch.manual_seed(1)
    policy = Categorical(logits=torch.tensor([0.1, 0.5, -0.2]))
    action = policy.sample()
    print(policy, action, policy.log_prob(action), D.Normal(0., 1.).sample((2,)))
    print(kl_divergence(Normal(torch.zeros(2), torch.ones(2)), D.Normal(1., 2.)))
    print(constraints.positive, register_kl.__name__)
""")


def test_distributions_import_forms_under_leafgrad_run(tmp_path):
    script = tmp_path / "rl.py"
    script.write_text(SCRIPT)
    ours = subprocess.run(leafgrad_cmd() + ["run", str(script)], cwd=str(ROOT), env=child_env(),
                          capture_output=True, text=True, timeout=120)
    assert ours.returncode == 0, ours.stderr
    theirs = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                            timeout=120)
    assert theirs.returncode == 0, theirs.stderr
    assert ours.stdout == theirs.stdout
