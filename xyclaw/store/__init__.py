"""The local SQLite history: schema, migrations, one writer, readers, backups."""

from xyclaw.store.database import check_writable
from xyclaw.store.migrations import LATEST_VERSION
from xyclaw.store.store import Store, StoreInfo, peek_schema_version

__all__ = ["LATEST_VERSION", "Store", "StoreInfo", "check_writable", "peek_schema_version"]
