"""The workloads of issue 14 that model what people train: a character LSTM,
a makemore-style embedding MLP, a hand-written attention block (until
``nn.MultiheadAttention`` is measured here) and the random number
generators. Same calling convention as ``workloads.py``:
``fn(torch, clock, **size) -> {metric: value}``, where ``torch`` is
leafgrad or PyTorch; data is NumPy, identical for every framework.
"""
import numpy as np

SIZES = {
    "char_lstm": {
        "full": dict(steps=50, batch=32, seq=64, hidden=128, vocab=48),
        "quick": dict(steps=2, batch=4, seq=8, hidden=8, vocab=12),
    },
    "embed_mlp": {
        "full": dict(steps=300, n_words=4000, context=3, emb=10, hidden=200, batch=64),
        "quick": dict(steps=3, n_words=50, context=3, emb=4, hidden=8, batch=16),
    },
    "attention": {
        "full": dict(steps=50, batch=16, seq=32, d_model=64, heads=4, layers=2),
        "quick": dict(steps=2, batch=2, seq=4, d_model=8, heads=2, layers=1),
    },
    "rng": {
        "full": dict(n=1_000_000, reps=10),
        "quick": dict(n=1000, reps=1),
    },
}

METRICS = {
    "char_lstm": [("ms_per_step", "ms/step", "time"), ("final_loss", "final loss", "acc")],
    "embed_mlp": [("ms_per_step", "ms/step", "time"), ("final_loss", "final loss", "acc")],
    "attention": [("ms_per_step", "ms/step", "time"), ("final_loss", "final loss", "acc")],
    "rng": [("uniform_ms", "rand 10^6 ms", "time"), ("normal_ms", "randn 10^6 ms", "time")],
}


def _chars(n, vocab, seed=0):
    """A deterministic character stream with structure an LSTM can learn
    (a noisy repeating pattern)."""
    rng = np.random.default_rng(seed)
    base = np.arange(n) % vocab
    noise = rng.integers(0, vocab, n)
    keep = rng.random(n) < 0.8
    return np.where(keep, base, noise).astype(np.int64)


def char_lstm(torch, clock, steps, batch, seq, hidden, vocab):
    """nn.Embedding(vocab, 32) -> nn.LSTM(32, hidden, batch_first) -> nn.Linear(hidden,
    vocab), next-character cross-entropy, Adam(lr=3e-3); ms per training step."""
    nn, F = torch.nn, torch.nn.functional
    data = _chars(batch * (seq + 1) * 4, vocab)
    windows = data[:batch * (seq + 1) * 4].reshape(4 * batch, seq + 1)
    batches = [(torch.from_numpy(windows[i:i + batch, :-1].copy()),
                torch.from_numpy(windows[i:i + batch, 1:].copy()))
               for i in range(0, 4 * batch, batch)]

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(vocab, 32)
            self.lstm = nn.LSTM(32, hidden, batch_first=True)
            self.out = nn.Linear(hidden, vocab)

        def forward(self, x):
            h, _ = self.lstm(self.emb(x))
            return self.out(h)

    def run(model, opt, steps):
        for s in range(steps):
            xb, yb = batches[s % len(batches)]
            opt.zero_grad()
            loss = F.cross_entropy(model(xb).reshape(-1, vocab), yb.reshape(-1))
            loss.backward()
            opt.step()
        return loss

    torch.manual_seed(1)
    m = Model()
    run(m, torch.optim.Adam(m.parameters(), lr=3e-3), 2)
    torch.manual_seed(0)
    model = Model()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    with clock("train"):
        loss = run(model, opt, steps)
    return {"ms_per_step": clock.total("train") / steps * 1e3, "final_loss": float(loss.item())}


def _names(n, seed=0):
    """Synthetic name-like words over 26 letters (consonant-vowel syllables)."""
    rng = np.random.default_rng(seed)
    cons, vows = list("bcdfghjklmnprstvz"), list("aeiouy")
    words = []
    for _ in range(n):
        k = rng.integers(1, 4)
        words.append("".join(cons[rng.integers(len(cons))] + vows[rng.integers(len(vows))]
                             for _ in range(k)) + ("n" if rng.random() < 0.3 else ""))
    return words


def _context_examples(words, context):
    """makemore's dataset: for every character, the ``context`` previous ones
    (0 = the '.' boundary) and the character to predict."""
    stoi = {c: i + 1 for i, c in enumerate("abcdefghijklmnopqrstuvwxyz")}
    X, Y = [], []
    for w in words:
        ctx = [0] * context
        for ch in w + ".":
            ix = stoi.get(ch, 0)
            X.append(ctx)
            Y.append(ix)
            ctx = ctx[1:] + [ix]
    return np.array(X, np.int64), np.array(Y, np.int64)


def embed_mlp(torch, clock, steps, n_words, context, emb, hidden, batch):
    """makemore's MLP: nn.Embedding(27, emb), the context embeddings concatenated,
    Linear(context*emb, hidden)-tanh-Linear(hidden, 27), cross-entropy, SGD(lr=0.1) on
    random minibatches; ms per training step."""
    nn, F = torch.nn, torch.nn.functional
    X, Y = _context_examples(_names(n_words), context)
    order = np.random.default_rng(1).integers(0, len(X), (steps + 5, batch))
    batches = [(torch.from_numpy(X[o]), torch.from_numpy(Y[o])) for o in order]

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(27, emb)
            self.l1 = nn.Linear(context * emb, hidden)
            self.l2 = nn.Linear(hidden, 27)

        def forward(self, x):
            e = self.emb(x)
            return self.l2(torch.tanh(self.l1(e.reshape(e.shape[0], -1))))

    def run(model, opt, batches):
        for xb, yb in batches:
            opt.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            opt.step()
        return loss

    torch.manual_seed(1)
    m = Model()
    run(m, torch.optim.SGD(m.parameters(), lr=0.1), batches[:5])
    torch.manual_seed(0)
    model = Model()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with clock("train"):
        loss = run(model, opt, batches[5:])
    return {"ms_per_step": clock.total("train") / steps * 1e3, "final_loss": float(loss.item())}


def attention(torch, clock, steps, batch, seq, d_model, heads, layers):
    """A ``layers``-layer pre-norm transformer encoder written by hand (q/k/v/out
    projections, softmax(q k^T / sqrt(d)) v over ``heads`` heads, LayerNorm, a 4x
    ReLU MLP, residuals), mean-pooled to a regression target, MSE, Adam(lr=1e-3);
    ms per training step."""
    nn, F = torch.nn, torch.nn.functional
    dh = d_model // heads
    rng = np.random.default_rng(0)
    xs = [torch.from_numpy(rng.standard_normal((batch, seq, d_model)).astype(np.float32))
          for _ in range(4)]
    ys = [torch.from_numpy(x.numpy().mean(axis=(1, 2)).reshape(-1, 1).astype(np.float32))
          for x in xs]

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.qkv = nn.Linear(d_model, 3 * d_model)
            self.proj = nn.Linear(d_model, d_model)
            self.n1 = nn.LayerNorm(d_model)
            self.n2 = nn.LayerNorm(d_model)
            self.fc1 = nn.Linear(d_model, 4 * d_model)
            self.fc2 = nn.Linear(4 * d_model, d_model)

        def forward(self, x):
            b, t, _ = x.shape
            q, k, v = self.qkv(self.n1(x)).reshape(b, t, 3, heads, dh).permute(2, 0, 3, 1, 4)
            att = F.softmax(q @ k.transpose(-2, -1) * (1.0 / dh ** 0.5), dim=-1)
            y = (att @ v).transpose(1, 2).reshape(b, t, d_model)
            x = x + self.proj(y)
            return x + self.fc2(F.relu(self.fc1(self.n2(x))))

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.blocks = nn.Sequential(*[Block() for _ in range(layers)])
            self.head = nn.Linear(d_model, 1)

        def forward(self, x):
            return self.head(self.blocks(x).mean(1))

    def run(model, opt, steps):
        for s in range(steps):
            opt.zero_grad()
            loss = F.mse_loss(model(xs[s % 4]), ys[s % 4])
            loss.backward()
            opt.step()
        return loss

    torch.manual_seed(1)
    m = Model()
    run(m, torch.optim.Adam(m.parameters(), lr=1e-3), 2)
    torch.manual_seed(0)
    model = Model()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    with clock("train"):
        loss = run(model, opt, steps)
    return {"ms_per_step": clock.total("train") / steps * 1e3, "final_loss": float(loss.item())}


def rng(torch, clock, n, reps):
    """``torch.rand(n)`` and ``torch.randn(n)`` (float32, the default generator):
    median ms per call."""
    torch.manual_seed(0)
    torch.rand(n)
    torch.randn(n)
    for _ in range(reps):
        with clock("uniform"):
            u = torch.rand(n)
        with clock("normal"):
            z = torch.randn(n)
    if not (0.45 < float(u.mean()) < 0.55 and abs(float(z.mean())) < 0.1):
        raise AssertionError("rng: implausible draws")
    return {"uniform_ms": clock.median("uniform") * 1e3,
            "normal_ms": clock.median("normal") * 1e3}


WORKLOADS = {"char_lstm": char_lstm, "embed_mlp": embed_mlp, "attention": attention, "rng": rng}
