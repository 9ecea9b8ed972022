import HCI
