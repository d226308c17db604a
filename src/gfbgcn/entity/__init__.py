"""Entity classification on RDF graphs (supplement): R-GCN vs GFB-R-GCN on AIFB/MUTAG/BGS/AM."""

from gfbgcn.entity.data import DATASETS, EntityData, EntityDataUnavailable, load_entities
from gfbgcn.entity.model import MODELS, EntityConfig, EntityNet

__all__ = [
    "DATASETS",
    "MODELS",
    "EntityConfig",
    "EntityData",
    "EntityDataUnavailable",
    "EntityNet",
    "load_entities",
]
