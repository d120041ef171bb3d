"""``leafgrad.utils.data``: Dataset, TensorDataset, DataLoader, random_split."""
