"""The torchmetrics calls learners make, printed: run by tests/test_libraries_under_leafgrad_run.py
with real torch and under `leafgrad run`, and the two outputs compared."""
import torch
import torchmetrics
from torchmetrics.classification import MulticlassAccuracy, BinaryF1Score, MulticlassConfusionMatrix
from torchmetrics.regression import MeanSquaredError, R2Score, PearsonCorrCoef
torch.manual_seed(0)
preds = torch.randn(50, 4).softmax(-1)
target = torch.randint(0, 4, (50,))
acc = MulticlassAccuracy(num_classes=4)
for i in range(0, 50, 10):
    acc.update(preds[i:i+10], target[i:i+10])
print("acc", acc.compute().item())
print("cm", MulticlassConfusionMatrix(num_classes=4)(preds, target).tolist())
bp = torch.rand(30); bt = torch.randint(0, 2, (30,))
print("f1", BinaryF1Score()(bp, bt).item())
x = torch.randn(40); y = 2 * x + 0.1 * torch.randn(40)
print("mse", MeanSquaredError()(x, y).item(), "r2", R2Score()(2 * x, y).item(), "pearson", PearsonCorrCoef()(x, y).item())
print("functional acc", torchmetrics.functional.accuracy(preds, target, task="multiclass", num_classes=4).item())
import torchmetrics as tm
from torchmetrics import MetricCollection
from torchmetrics.classification import (MulticlassAUROC, MulticlassPrecision, MulticlassRecall,
    BinaryAccuracy, MultilabelAccuracy, MulticlassCalibrationError, BinaryAveragePrecision, BinaryROC)
from torchmetrics.regression import MeanAbsoluteError, MeanAbsolutePercentageError, ExplainedVariance, SpearmanCorrCoef, CosineSimilarity
from torchmetrics.aggregation import MeanMetric, SumMetric, MaxMetric, RunningMean
torch.manual_seed(1)
p = torch.randn(64, 5).softmax(-1); t = torch.randint(0, 5, (64,))
coll = MetricCollection([MulticlassAUROC(5), MulticlassPrecision(5, average="macro"), MulticlassRecall(5, average="weighted"), MulticlassCalibrationError(5)])
for i in range(0, 64, 16):
    coll.update(p[i:i+16], t[i:i+16])
print({k: round(v.item(), 6) for k, v in coll.compute().items()})
bp = torch.rand(40); bt = torch.randint(0, 2, (40,))
print(BinaryAccuracy(threshold=0.3)(bp, bt).item(), BinaryAveragePrecision()(bp, bt).item())
fpr, tpr, thr = BinaryROC()(bp, bt); print(fpr[:5].tolist(), tpr[:5].tolist())
ml = MultilabelAccuracy(num_labels=3); print(ml(torch.rand(10, 3), torch.randint(0, 2, (10, 3))).item())
x = torch.randn(30); y = x + 0.3 * torch.randn(30)
print(MeanAbsoluteError()(x, y).item(), MeanAbsolutePercentageError()(x, y).item(), ExplainedVariance()(x, y).item(), SpearmanCorrCoef()(x, y).item())
print(CosineSimilarity(reduction="mean")(torch.randn(4, 6), torch.randn(4, 6)).item())
m = MeanMetric(); s = SumMetric(); mx = MaxMetric(); rm = RunningMean(window=3)
for v in [1.0, 5.0, 2.0, 8.0]:
    m.update(v); s.update(torch.tensor(v)); mx.update(v); rm.update(v)
print(m.compute().item(), s.compute().item(), mx.compute().item(), rm.compute().item())
acc = tm.Accuracy(task="multiclass", num_classes=5)
print(acc(p, t).item()); acc.reset(); print(acc.update(p, t), acc.compute().item())
print(tm.functional.f1_score(p, t, task="multiclass", num_classes=5, average="micro").item())
print(tm.functional.pairwise_euclidean_distance(torch.randn(3, 4), torch.randn(2, 4)).shape)
