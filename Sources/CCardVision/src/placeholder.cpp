#include "card_vision.h" // placeholder until the vision core lands
