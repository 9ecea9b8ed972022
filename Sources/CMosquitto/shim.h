// libmosquitto, the Eclipse Mosquitto project's MQTT client library (Debian: libmosquitto-dev).
#include <mosquitto.h>
