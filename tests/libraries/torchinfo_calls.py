"""The torchinfo calls learners make, printed: run by tests/test_libraries_under_leafgrad_run.py
with real torch and under `leafgrad run`, and the two outputs compared."""
import torch
from torch import nn
from torchinfo import summary
torch.manual_seed(0)
model = nn.Sequential(nn.Conv2d(1, 4, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(4 * 13 * 13, 10))
s = summary(model, input_size=(2, 1, 28, 28), verbose=0)
print(s)
torch.manual_seed(0)
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(100, 16)
        self.lstm = nn.LSTM(16, 32, num_layers=2, batch_first=True, bidirectional=True)
        self.norm = nn.LayerNorm(64)
        self.head = nn.Sequential(nn.Linear(64, 32), nn.GELU(), nn.Dropout(0.1), nn.Linear(32, 3))
    def forward(self, x):
        h, _ = self.lstm(self.emb(x))
        return self.head(self.norm(h[:, -1]))
print(summary(Net(), input_data=torch.randint(0, 100, (4, 7)), col_names=("input_size", "output_size", "num_params", "kernel_size", "mult_adds", "trainable"), depth=4, verbose=0))
cnn = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 2))
print(summary(cnn, (1, 3, 16, 16), verbose=0, row_settings=("var_names", "depth")))
enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(32, 4, 64, batch_first=True), 2)
print(summary(enc, (2, 5, 32), verbose=0, depth=3))
