"""The dialog that asks for a job's secret values (``HF_TOKEN``) this machine lacks: used by
the Jobs page's launch and by the chat's launch card (its own module, so the chat does not
import the launch flow, which imports the chat's approval card)."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from xyclaw.gui.widgets import plain_label


class SecretValuesDialog(QDialog):
    """Asks for the values of a job's secret variables that this machine does not have
    (``HF_TOKEN``): typed hidden, kept in the keyring through the Engine for this launch and
    every later one, never in the history."""

    def __init__(self, job: str, names: list[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("secretValuesDialog")
        self.names = list(names)
        self.setWindowTitle(self.tr("Secrets for {job}").format(job=job))
        self.explain = plain_label(
            self.tr(
                "Job {job} takes {names} from this machine's environment, where it is not set."
                " Enter the value to keep it in the keyring for this launch and later ones; it"
                " is never stored in the history or the log."
            ).format(job=job, names=", ".join(self.names)),
            multiline=True,
        )
        self.explain.setWordWrap(True)
        self.fields: dict[str, QLineEdit] = {}
        form = QFormLayout()
        for name in self.names:
            field = QLineEdit()
            field.setObjectName(f"secretValue_{name}")
            field.setEchoMode(QLineEdit.EchoMode.Password)
            field.textChanged.connect(lambda _t: self._enable())
            self.fields[name] = field
            label = plain_label(name)
            label.setProperty("data", True)
            form.addRow(label, field)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.save_button = self.buttons.addButton(
            self.tr("Save and launch"), QDialogButtonBox.ButtonRole.AcceptRole
        )
        self.save_button.setObjectName("secretSaveButton")
        self.save_button.setProperty("role", "primary")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.explain)
        layout.addLayout(form)
        layout.addWidget(self.buttons)
        self._enable()
        self.setMinimumWidth(480)

    def _enable(self) -> None:
        self.save_button.setEnabled(all(f.text().strip() for f in self.fields.values()))

    def values(self) -> dict[str, str]:
        return {name: field.text().strip() for name, field in self.fields.items()}
