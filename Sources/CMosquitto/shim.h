// libmosquitto, the Eclipse Mosquitto project's MQTT client library (Debian: libmosquitto-dev),
// its MQTT 5 reason codes, and the OpenSSL it runs TLS on (Debian: libssl-dev): the TLS
// files are checked with OpenSSL before connecting, and a refused handshake's certificate
// verdict is read from OpenSSL while libmosquitto reports it.
#include <mosquitto.h>
#include <mqtt_protocol.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
