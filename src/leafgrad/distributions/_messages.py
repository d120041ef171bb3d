"""The user-facing messages of leafgrad.distributions: PyTorch's text first (scripts that
print an error see what torch prints), then what to do."""

BROADCAST_TYPES = ("Input arguments must all be instances of Number, torch.Tensor or "
                   "objects implementing __torch_function__.")
BAD_PARAMETER = ("Expected parameter {param} ({kind} of shape {shape}) of distribution {dist} "
                 "to satisfy the constraint {constraint}, but found invalid values:\n{value}\nFix: pass parameters inside that constraint, or "
                 "validate_args=False to skip the check.")
NOT_TENSOR = "The value argument to log_prob must be a Tensor"
EVENT_SHAPE = "The right-most size of value must match event_shape: {} vs {}."
NOT_BROADCASTABLE = "Value is not broadcastable with batch_shape+event_shape: {} vs {}."
OUT_OF_SUPPORT = ("Expected value argument ({kind} of shape {shape}) to be within the support "
                  "({support}) of the distribution {dist}, but found invalid values:\n{value}\n"
                  "Fix: evaluate only values in the support, or validate_args=False to skip the check.")
NO_KL = "No KL(p || q) is implemented for p type {} and q type {}"
CUSTOM_INIT = ("Subclass {} of {} that defines a custom __init__ method must also define a "
               "custom .expand() method.")
ONE_OF = "Either `probs` or `logits` must be specified, but not both."
