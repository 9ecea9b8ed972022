#include <sys/socket.h>
#include <sys/ioctl.h>
#include <bluetooth/bluetooth.h>
#include <bluetooth/hci.h>
#include <bluetooth/hci_lib.h>
#include <bluetooth/l2cap.h>

/* HCIGETDEVLIST and HCIGETDEVINFO are _IOR(...) expressions, which Swift cannot import as
   constants; these hand their values over. */
static inline unsigned long cbluez_hci_get_device_list_request(void) { return HCIGETDEVLIST; }
static inline unsigned long cbluez_hci_get_device_info_request(void) { return HCIGETDEVINFO; }
