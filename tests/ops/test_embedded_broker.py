"""The embedded filesystem broker after a full disk: zero-byte files must not stop the worker."""

from kombu import Connection

SCHEME = "kinplayfs"


def broker(tmp_path, scheme):
    folders = {name: tmp_path / name for name in ("out", "processed", "control")}
    for folder in folders.values():
        folder.mkdir(exist_ok=True)
    options = {"data_folder_in": str(folders["out"]), "data_folder_out": str(folders["out"]),
               "processed_folder": str(folders["processed"]), "control_folder": str(folders["control"]),
               "store_processed": False}
    return Connection(f"{scheme}://", transport_options=options), folders


def test_it_keeps_working_after_a_full_disk_left_empty_files(tmp_path):
    import kinplay.celery  # noqa: F401 - registers the transport

    conn, folders = broker(tmp_path, SCHEME)
    # what a write that ran out of space leaves behind: an empty exchange table, an empty message
    (folders["control"] / "deadlines.exchange").write_bytes(b"")
    (folders["out"] / "0_00000000-0000-0000-0000-000000000000.deadlines.msg").write_bytes(b"")
    with conn:
        queue = conn.SimpleQueue("deadlines")  # what a starting worker does: bind its queue
        queue.put({"task": "sweep"})
        message = queue.get(timeout=2)
        assert message.payload == {"task": "sweep"}
        message.ack()
        queue.close()
    assert (folders["control"] / "deadlines.exchange.broken").exists()
