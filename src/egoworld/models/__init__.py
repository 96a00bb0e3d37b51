"""Model backends behind one small async interface (see `egoworld.models.base`)."""

from egoworld.models.base import Generation, ImagePart, Message, Model, ModelError, Request, TextPart
from egoworld.models.spec import available_backends, create_model

__all__ = [
    "Generation",
    "ImagePart",
    "Message",
    "Model",
    "ModelError",
    "Request",
    "TextPart",
    "available_backends",
    "create_model",
]
