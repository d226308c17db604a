"""Entity classification on RDF graphs (supplement): R-GCN vs GFB-R-GCN on AIFB/MUTAG/BGS/AM.

Modules: :mod:`.data` (PyG ``Entities`` under the data root), :mod:`.model` (configs and
builders of :class:`~gfbgcn.nn.models.EntityNet`), :mod:`.train` (one run), :mod:`.experiment`
(validation choices, then test runs), :mod:`.report` and :mod:`.cli`
(``gfbgcn reproduce entity``).
"""

from gfbgcn.entity.data import (
    DATASETS,
    EntityData,
    load_entities,
)
from gfbgcn.entity.model import MODELS, EntityConfig, build_entity_net

__all__ = [
    "DATASETS",
    "MODELS",
    "EntityConfig",
    "EntityData",
    "build_entity_net",
    "load_entities",
]
