#include "card_render.h"
